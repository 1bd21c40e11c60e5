// cacheEvaluation: 'disk' serves a later run of the same adapter identity every evaluation an
// earlier run kept (free: no metric call), so a second run retraces the first and goes further;
// false makes every evaluation a metric call; the default is the in-memory cache as it was.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { ConfigError, optimize, type OptimizeConfig, type OptimizeResult } from '../src/index.js';
import { runOnSimulatedClock, steppingClock } from '../src/clock.js';
import { EVALUATION_CACHE_FILE } from '../src/storage/evaluationCacheDir.js';
import { diffRunConfigs, runConfigRecord } from '../src/storage/runConfigRecord.js';
import { resolveSettings } from '../src/config/runSettings.js';
import { KEYWORDS, toyExamples, toyTask, type ToyExample } from './support/toyTask.js';

/** One adapter call: the candidate's text, the example, traces or not. */
type Call = string;

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'gepa-cache-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The toy task (valset = trainset, so a child's minibatch pairs recur in its valset evaluation), recording each adapter call. */
async function cachedRun(config: Partial<OptimizeConfig<ToyExample>>): Promise<{ result: OptimizeResult; calls: Call[] }> {
  const clock = steppingClock(new SimulatedClock());
  const task = toyTask({ clock, evalMs: () => 5, reflectMs: () => 20 });
  const calls: Call[] = [];
  const adapter: OptimizeConfig<ToyExample>['adapter'] = {
    evaluate: (candidate, example, ctx) => {
      calls.push(`${candidate.instructions}|${example.id}|${ctx.captureTraces ? 'traced' : 'plain'}`);
      return task.adapter.evaluate(candidate, example, ctx);
    },
  };
  const result = await runOnSimulatedClock(
    clock,
    optimize({ seedCandidate: { instructions: 'Answer.' }, trainset: toyExamples('t', KEYWORDS.slice(0, 8)), adapter, reflectionLm: task.reflectionLm, maxMetricCalls: 60, seed: 2, clock, ...config }),
  );
  return { result, calls };
}

/** Each call with its occurrence number: the n-th call of the same pair is a different evaluation. */
const numbered = (calls: readonly Call[]): string[] => {
  const seen = new Map<Call, number>();
  return calls.map((c) => {
    const n = seen.get(c) ?? 0;
    seen.set(c, n + 1);
    return `${c}#${n}`;
  });
};

const DISK = (cacheDir: string): Partial<OptimizeConfig<ToyExample>> => ({ cacheEvaluation: 'disk', cacheDir, runIdentity: { adapter: 'toy@1' } });

describe('cacheEvaluation', () => {
  it("'disk': a second run is served what the first kept, calls the adapter only for the rest, and goes further", async () => {
    const dir = freshDir();
    const first = await cachedRun({ ...DISK(dir) });
    const second = await cachedRun({ ...DISK(dir), maxMetricCalls: 150 });
    // The same run as far as the first went, then further.
    expect(second.result.candidates.slice(0, first.result.candidates.length)).toEqual(first.result.candidates);
    expect(second.result.candidates.length).toBeGreaterThan(first.result.candidates.length);
    expect(second.result.valScores.slice(0, first.result.valScores.length)).toEqual(first.result.valScores);
    // Not one evaluation of the first run was made again; a hit is not a metric call.
    const firstCalls = new Set(numbered(first.calls));
    expect(numbered(second.calls).filter((c) => firstCalls.has(c))).toEqual([]);
    expect(second.result.metricCalls).toBe(second.calls.length);
    expect(first.result.metricCalls).toBe(first.calls.length);
    // Every call the first run made (traced ones included, the seed's too) was kept: a third run
    // on the first's budget retraces it without one adapter call of the first's.
    const third = await cachedRun({ ...DISK(dir) });
    expect(third.result.candidates.slice(0, first.result.candidates.length)).toEqual(first.result.candidates);
    expect(numbered(third.calls).filter((c) => firstCalls.has(c))).toEqual([]);
  });

  it("'disk' serves only runs of the same adapter identity", async () => {
    const dir = freshDir();
    const first = await cachedRun({ ...DISK(dir) });
    const other = await cachedRun({ ...DISK(dir), runIdentity: { adapter: 'toy@2' } });
    expect(other.calls).toEqual(first.calls);
    // The reflection model is not the adapter: naming another one still hits (and, the hits being
    // free, the run goes on past the first's end and pays for what is new).
    const renamed = await cachedRun({ ...DISK(dir), runIdentity: { adapter: 'toy@1', reflectionLm: 'another-model' } });
    const firstCalls = new Set(numbered(first.calls));
    expect(numbered(renamed.calls).filter((c) => firstCalls.has(c))).toEqual([]);
  });

  it("'disk' skips a torn or foreign line and writes after it", async () => {
    const dir = freshDir();
    const first = await cachedRun({ ...DISK(dir) });
    const file = join(dir, EVALUATION_CACHE_FILE);
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    // The first record lost to a crash mid-write (torn at the end), plus a line that is no record.
    writeFileSync(file, `not a record\n${lines.slice(1).join('\n')}\n${lines[0]?.slice(0, 30)}`);
    const second = await cachedRun({ ...DISK(dir) });
    expect(second.result.candidates.slice(0, first.result.candidates.length)).toEqual(first.result.candidates);
    // Of the first run's evaluations, only the lost one was paid again, and kept again on a line of its own.
    const firstCalls = new Set(numbered(first.calls));
    const lost = JSON.parse(lines[0] ?? '{}') as { key: string };
    expect(numbered(second.calls).filter((c) => firstCalls.has(c))).toHaveLength(1);
    const after = readFileSync(file, 'utf8').split('\n');
    expect(after.filter((line) => line.startsWith(`{"key":"${lost.key}"`))).toHaveLength(1);
    const third = await cachedRun({ ...DISK(dir) });
    expect(numbered(third.calls).filter((c) => firstCalls.has(c))).toEqual([]);
  });

  it('false: every evaluation is a metric call, a repeated one too', async () => {
    const memory = await cachedRun({});
    const off = await cachedRun({ cacheEvaluation: false });
    const repeated = (calls: readonly Call[]) => calls.filter((c) => c.endsWith('|plain')).filter((c, i, all) => all.indexOf(c) !== i);
    expect(repeated(memory.calls)).toEqual([]);
    expect(repeated(off.calls).length).toBeGreaterThan(0);
    expect(off.result.metricCalls).toBe(off.calls.length);
    expect(memory.result.metricCalls).toBe(memory.calls.length);
  });

  it("the default is 'memory', the cache as it was", async () => {
    const unset = await cachedRun({});
    const memory = await cachedRun({ cacheEvaluation: 'memory' });
    expect(memory.result).toEqual(unset.result);
    expect(memory.calls).toEqual(unset.calls);
  });

  it("'disk' needs cacheDir and the adapter's identity; cacheDir needs 'disk'", async () => {
    await expect(cachedRun({ cacheEvaluation: 'disk', runIdentity: { adapter: 'toy@1' } })).rejects.toThrow(new ConfigError("invalid optimize config: cacheDir: required with cacheEvaluation 'disk' (the folder that keeps the evaluations)"));
    await expect(cachedRun({ cacheEvaluation: 'disk', cacheDir: freshDir() })).rejects.toThrow(/runIdentity: cacheEvaluation 'disk' needs the adapter's identity/);
    await expect(cachedRun({ cacheEvaluation: 'disk', cacheDir: freshDir(), runIdentity: { reflectionLm: 'm' } })).rejects.toThrow(/runIdentity/);
    await expect(cachedRun({ cacheDir: freshDir() })).rejects.toThrow(/cacheDir: only used with cacheEvaluation 'disk'/);
    await expect(cachedRun({ cacheEvaluation: 'memroy' as 'memory' })).rejects.toThrow(/cacheEvaluation/);
  });
});

describe('a run directory records the cache mode', () => {
  const config: OptimizeConfig<ToyExample> = { seedCandidate: { instructions: 'Answer.' }, trainset: toyExamples('t', KEYWORDS.slice(0, 4)), adapter: { evaluate: async () => ({ score: 1, output: '' }) }, reflectionLm: 'openai:some-model', maxMetricCalls: 20 };
  const record = (extra: Partial<OptimizeConfig<ToyExample>>) => runConfigRecord({ ...config, ...extra }, resolveSettings({ ...config, ...extra }));

  it("compares it on resume (it changes what a run pays for), records cacheDir without comparing it", () => {
    const disk = record(DISK('/tmp/a'));
    expect(disk.settings.cacheEvaluation).toBe('disk');
    expect(disk.operational.cacheDir).toBe('/tmp/a');
    expect(diffRunConfigs(disk, record({ runIdentity: { adapter: 'toy@1' } })).map((d) => d.text)).toEqual(['cacheEvaluation: "disk" in the run directory, "memory" now']);
    expect(diffRunConfigs(disk, record(DISK('/tmp/b')))).toEqual([]);
    expect(diffRunConfigs(record({}), record({ cacheEvaluation: false })).map((d) => d.text)).toEqual(['cacheEvaluation: "memory" in the run directory, false now']);
  });

  it("a resume that leaves it unset keeps the recorded mode and folder (never a silent change); a mode given is compared", async () => {
    const runDir = join(freshDir(), 'run');
    const cacheDir = join(freshDir(), 'cache');
    const durable = { runDir, runIdentity: { adapter: 'toy@1', reflectionLm: 'toy' } };
    await cachedRun({ ...durable, cacheEvaluation: 'disk', cacheDir, maxMetricCalls: 30 });
    const stored = JSON.parse(readFileSync(join(runDir, 'config.json'), 'utf8')) as { settings: { cacheEvaluation: unknown }; operational: { cacheDir?: string } };
    expect(stored.settings.cacheEvaluation).toBe('disk');
    expect(stored.operational.cacheDir).toBe(cacheDir);
    const kept = readFileSync(join(cacheDir, EVALUATION_CACHE_FILE), 'utf8').split('\n').length;
    // Continued to a larger budget with neither option: still 'disk', into the same folder.
    const resumed = await cachedRun({ ...durable, maxMetricCalls: 60 });
    expect(resumed.result.metricCalls).toBeGreaterThan(30);
    expect(readFileSync(join(cacheDir, EVALUATION_CACHE_FILE), 'utf8').split('\n').length).toBeGreaterThan(kept);
    await expect(cachedRun({ ...durable, maxMetricCalls: 90, cacheEvaluation: 'memory' })).rejects.toThrow('cacheEvaluation: "disk" in the run directory, "memory" now');
  });

  it("a directory written before the setting resumes as the 'memory' run it was; optimizeAnything's old `evaluationCacheOff` reads as false", () => {
    const old = record({});
    delete old.settings.cacheEvaluation;
    expect(diffRunConfigs(old, record({}))).toEqual([]);
    expect(diffRunConfigs(old, record({ cacheEvaluation: false })).map((d) => d.text)).toEqual(['cacheEvaluation: "memory" in the run directory, false now']);
    const oldOff = record({});
    delete oldOff.settings.cacheEvaluation;
    oldOff.settings.evaluationCacheOff = true;
    expect(diffRunConfigs(oldOff, record({ cacheEvaluation: false }))).toEqual([]);
    expect(diffRunConfigs(oldOff, record({})).map((d) => d.text)).toEqual(['cacheEvaluation: false in the run directory, "memory" now']);
  });
});
