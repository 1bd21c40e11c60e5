// Durable runs: a run directory survives kill -9 at any point, a resumed run pays for nothing
// twice and ends with the uninterrupted run's result, a finished run returns at once, damaged
// or foreign files are refused plainly, and a STOP file or a signal stops a run gracefully.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, optimize, type OptimizeResult } from '../src/index.js';
import { RunDirectoryError } from '../src/storage/runDirectoryError.js';
import { readRunLog } from '../src/storage/runLog.js';
import { Rng } from '../src/gepa/core/rng.js';
import type { LanguageModel } from '../src/gepa/core/languageModel.js';
import type { RunEvent } from '../src/gepa/core/runEvent.js';
import { DURABLE_WORKERS, durableRunConfig } from './support/durableRunTask.js';
import { lines, runKillableChild, type Kill } from './support/killableChild.js';
import { failedRun } from './support/failedRun.js';

const scratch = mkdtempSync(join(tmpdir(), 'gepa-durable-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let dirCount = 0;
const freshDir = (name: string) => join(scratch, `${name}-${++dirCount}`);

/** Everything but the timing figures. */
const essence = ({ elapsedMs: _e, workerUtilization: _u, discoveryElapsedMs: _d, ...rest }: OptimizeResult) => rest;

const logOf = (dir: string) => join(dir, 'log.jsonl');
const evalRecords = (dir: string) => readRunLog(logOf(dir)).records.filter((r) => r.t === 'eval').length;

/** A finished run's directory, copied so that a test may damage it. */
function copyOf(dir: string, name: string): string {
  const copy = freshDir(name);
  cpSync(dir, copy, { recursive: true });
  return copy;
}

/** A config on `dir` whose adapter and reflection LM count the calls they really make. */
function counted(dir: string) {
  const calls = { metric: 0, reflection: 0 };
  const config = durableRunConfig(dir, () => calls.metric++);
  const reflectionLm = config.reflectionLm as LanguageModel;
  config.reflectionLm = (prompt, ctx) => {
    calls.reflection++;
    return reflectionLm(prompt, ctx);
  };
  return { config, calls };
}

let reference: OptimizeResult;
let referenceDir: string;
let referenceCalls: number;

beforeAll(async () => {
  // (a) The uninterrupted run, in this process, with a run directory.
  referenceDir = freshDir('reference');
  const { config, calls } = counted(referenceDir);
  reference = await optimize(config);
  referenceCalls = calls.metric;
});

describe('an uninterrupted run with a runDir', () => {
  it('pays each call once and logs it: one eval record per metric call, then the result', () => {
    expect(reference.stopReason).toBe('maxMetricCalls');
    expect(reference.candidates.length).toBeGreaterThan(3);
    expect(referenceCalls).toBe(reference.metricCalls);
    const { records } = readRunLog(logOf(referenceDir));
    expect(records.filter((r) => r.t === 'eval')).toHaveLength(reference.metricCalls);
    expect(records.filter((r) => r.t === 'reflect')).toHaveLength(reference.reflectionCalls);
    expect(records.filter((r) => r.t === 'candidate').map((r) => (r.t === 'candidate' ? r.index : -1))).toEqual(
      reference.candidates.slice(1).map((_, i) => i + 1),
    );
    expect(records.at(-1)).toEqual({ t: 'result', result: JSON.parse(JSON.stringify(reference)) });
    const state = JSON.parse(readFileSync(join(referenceDir, 'state.json'), 'utf8'));
    expect(state).toMatchObject({ status: 'finished', bestIndex: reference.bestIndex, metricCalls: reference.metricCalls, stopReason: 'maxMetricCalls' });
    expect(state.candidates).toHaveLength(reference.candidates.length);
    expect(readdirSync(referenceDir).sort()).toEqual(['config.json', 'log.jsonl', 'state.json']);
  });
});

/** Runs the durable demo run's child on `dir`, killed with SIGKILL as `kill` says, unless it finishes first. */
const runChild = (dir: string, counterFile: string, kill?: Kill, schedule: 'batched' | 'async' = 'batched') =>
  runKillableChild<OptimizeResult>('test/support/durableRunChild.ts', [dir, counterFile, schedule], counterFile, kill);

describe('kill -9 and resume', () => {
  it('killed with SIGKILL at 12 random points and resumed each time, it ends with the uninterrupted result, paying only for calls in flight at a kill again', async () => {
    const dir = freshDir('killed');
    const rng = new Rng(2024);
    // Kill points spread over the whole run's paid work (so that every kill lands before the end,
    // however fast this machine is), each a random few milliseconds after its call count; some
    // kills instead come right after the start, while the process replays the log.
    const points = Array.from({ length: 12 }, () => (0.02 + 0.88 * rng.next()) * reference.metricCalls).sort((a, b) => a - b);
    const killAt = (attempt: number, recorded: number): Kill | undefined => {
      const point = points[attempt];
      if (point === undefined) return undefined;
      if (rng.next() < 0.25) return { afterReadyMs: 60 * rng.next() };
      return { calls: Math.max(1, Math.round(point) - recorded), ms: 30 * rng.next() };
    };
    let kills = 0;
    let executed = 0;
    let inFlightAtKills = 0;
    let final: OptimizeResult | undefined;
    for (let attempt = 0; final === undefined; attempt++) {
      const counter = join(scratch, `killed-calls-${attempt}.txt`);
      const recordedBefore = evalRecords(dir);
      const outcome = await runChild(dir, counter, killAt(attempt, recordedBefore));
      const started = lines(counter);
      const recorded = evalRecords(dir) - recordedBefore;
      executed += started;
      if (outcome.killed) {
        kills++;
        // Started but not in the log: in flight at the kill (at most one per worker).
        const inFlight = started - recorded;
        expect(inFlight).toBeGreaterThanOrEqual(0);
        expect(inFlight).toBeLessThanOrEqual(DURABLE_WORKERS);
        inFlightAtKills += inFlight;
      } else {
        expect(started).toBe(recorded);
        final = outcome.result;
      }
      expect(attempt).toBeLessThan(20);
    }
    expect(kills).toBeGreaterThanOrEqual(10);
    expect(essence(final)).toEqual(essence(reference));
    // Every paid call is in the log exactly once, and nothing was paid twice but work in flight.
    expect(evalRecords(dir)).toBe(reference.metricCalls);
    expect(executed - reference.metricCalls).toBe(inFlightAtKills);
    expect(inFlightAtKills).toBeLessThanOrEqual(kills * DURABLE_WORKERS);
    // About 15 s alone; thirteen process starts can take much longer on a loaded machine.
  }, 120_000);

  it('async 8, killed with SIGKILL at six random points and resumed: reported calls are the logged ones, within the budget, and paid calls exceed them only by what was in flight at the kills', async () => {
    const dir = freshDir('killed-async');
    const rng = new Rng(77);
    const budget = durableRunConfig(dir).maxMetricCalls as number;
    const points = Array.from({ length: 6 }, () => (0.05 + 0.8 * rng.next()) * budget).sort((a, b) => a - b);
    let kills = 0;
    let paid = 0;
    let inFlightAtKills = 0;
    let final: OptimizeResult | undefined;
    for (let attempt = 0; final === undefined; attempt++) {
      const counter = join(scratch, `killed-async-calls-${attempt}.txt`);
      const recordedBefore = evalRecords(dir);
      const point = points[attempt];
      const kill = point === undefined ? undefined : { calls: Math.max(1, Math.round(point) - recordedBefore), ms: 30 * rng.next() };
      const outcome = await runChild(dir, counter, kill, 'async');
      const started = lines(counter);
      paid += started;
      if (outcome.killed) {
        kills++;
        inFlightAtKills += started - (evalRecords(dir) - recordedBefore);
      } else final = outcome.result;
      expect(evalRecords(dir)).toBeLessThanOrEqual(budget);
      expect(attempt).toBeLessThan(12);
    }
    expect(kills).toBeGreaterThanOrEqual(5);
    const result = final as OptimizeResult;
    expect(result.metricCalls).toBe(evalRecords(dir));
    expect(result.metricCalls).toBeLessThanOrEqual(budget);
    expect(paid - result.metricCalls).toBe(inFlightAtKills);
    expect(inFlightAtKills).toBeLessThanOrEqual(kills * DURABLE_WORKERS);
  }, 120_000);
});

describe('resuming', () => {
  it('a finished run returns its result without any call', async () => {
    const { config, calls } = counted(referenceDir);
    const before = readFileSync(logOf(referenceDir));
    expect(await optimize(config)).toEqual(reference);
    expect(calls).toEqual({ metric: 0, reflection: 0 });
    expect(readFileSync(logOf(referenceDir)).equals(before)).toBe(true);
  });

  it('a torn last line is cut away and its work redone; everything before it is replayed', async () => {
    const dir = copyOf(referenceDir, 'torn');
    const text = readFileSync(logOf(dir), 'utf8');
    const all = text.split('\n').slice(0, -1);
    // Drop the result, and tear the last eval record in half, as a crash mid-write would.
    const lastEval = all.findLastIndex((l) => l.startsWith('{"t":"eval"'));
    const kept = all.slice(0, lastEval).concat(all.slice(lastEval + 1, -1));
    const torn = all[lastEval] as string;
    writeFileSync(logOf(dir), `${kept.join('\n')}\n${torn.slice(0, torn.length / 2)}`);
    const { config, calls } = counted(dir);
    expect(essence(await optimize(config))).toEqual(essence(reference));
    expect(calls).toEqual({ metric: 1, reflection: 0 });
    const { records, tornLine } = readRunLog(logOf(dir));
    expect(tornLine).toBeUndefined();
    expect(records.filter((r) => r.t === 'eval')).toHaveLength(reference.metricCalls);
    expect(records.at(-1)?.t).toBe('result');
  });

  it('replayed calls count their dollars, in the result and in the running budget', async () => {
    const dir = freshDir('dollars');
    const costed = (calls: { metric: number }) => {
      const config = durableRunConfig(dir, () => calls.metric++);
      const { adapter } = config;
      const reflectionLm = config.reflectionLm as LanguageModel;
      let lastBudget: Extract<RunEvent, { type: 'budget.updated' }> | undefined;
      return {
        get lastBudget() {
          return lastBudget;
        },
        config: {
          ...config,
          adapter: { ...adapter, evaluate: async (...args: Parameters<typeof adapter.evaluate>) => ({ ...(await adapter.evaluate(...args)), costUsd: 0.001 }) },
          reflectionLm: async (prompt: string, ctx: { signal: AbortSignal }) => {
            const reply = await reflectionLm(prompt, ctx);
            return { text: typeof reply === 'string' ? reply : reply.text, costUsd: 0.01 };
          },
          maxMetricCalls: 150,
          onEvent: (event: RunEvent) => {
            if (event.type === 'budget.updated') lastBudget = event;
          },
        },
      };
    };
    const firstCalls = { metric: 0 };
    const first = costed(firstCalls);
    const full = await optimize(first.config);
    expect(full.costUsd).toBeCloseTo(full.metricCalls * 0.001 + full.reflectionCalls * 0.01, 9);
    // Forget the result: the resumed run replays every call.
    const all = readFileSync(logOf(dir), 'utf8').split('\n').slice(0, -2);
    writeFileSync(logOf(dir), `${all.join('\n')}\n`);
    const againCalls = { metric: 0 };
    const again = costed(againCalls);
    const resumed = await optimize(again.config);
    // Dollars are summed in the order calls finish: equal up to the last bit of a float.
    expect({ ...essence(resumed), costUsd: 0 }).toEqual({ ...essence(full), costUsd: 0 });
    expect(resumed.costUsd).toBeCloseTo(full.costUsd, 9);
    expect(againCalls.metric).toBe(0);
    expect(again.lastBudget?.costUsd).toBeCloseTo(first.lastBudget?.costUsd ?? NaN, 9);
    expect(again.lastBudget?.costUsd).toBeCloseTo(full.costUsd, 9);
  });

  it("each process's pre-run dollars (the CLI's endpoint check) stay in the run's cost after a resume", async () => {
    const dir = freshDir('prerun');
    const config = { ...durableRunConfig(dir), maxMetricCalls: 120 };
    const full = await optimize({ ...config, preRunCostUsd: 0.25 });
    expect(full.costUsd).toBeCloseTo(0.25, 12);
    // Forget the result (the last two lines): the resumed process pings again and pays 0.5.
    const all = readFileSync(logOf(dir), 'utf8').split('\n').slice(0, -2);
    writeFileSync(logOf(dir), `${all.join('\n')}\n`);
    const resumed = await optimize({ ...config, preRunCostUsd: 0.5 });
    expect(resumed.costUsd).toBeCloseTo(0.75, 12);
    expect(readRunLog(logOf(dir)).records.filter((r) => r.t === 'prerun')).toEqual([
      { t: 'prerun', costUsd: 0.25 },
      { t: 'prerun', costUsd: 0.5 },
    ]);
  });

  it('a run whose failed calls leave too little budget to evaluate the seed again is refused, not overspent', async () => {
    const dir = freshDir('failed-seed');
    const base = durableRunConfig(dir);
    const valset = (base.valset ?? []).slice(0, 4);
    // The seed's 4 calls all fail (a systemic stop), and are paid; trying them again needs 4 more of a budget of 6.
    const config = { ...base, valset, maxMetricCalls: 6, adapter: { ...base.adapter, evaluate: async () => Promise.reject(new Error('HTTP 503')) } };
    const { result: first } = await failedRun(optimize(config));
    expect(first.metricCalls).toBe(4);
    const before = readFileSync(logOf(dir), 'utf8');
    await expect(optimize({ ...config, adapter: base.adapter })).rejects.toThrow(
      new ConfigError('cannot resume: 4 metric calls of this run failed and count against maxMetricCalls 6, which leaves too little to evaluate the seed on the valset (4 calls) again'),
    );
    expect(readFileSync(logOf(dir), 'utf8')).toBe(before);
  });

  it('a damaged line before the end is refused with its line number, and nothing is written', async () => {
    const dir = copyOf(referenceDir, 'corrupt');
    const all = readFileSync(logOf(dir), 'utf8').split('\n');
    all[4] = '{"t":"eval","key":';
    writeFileSync(logOf(dir), all.join('\n'));
    const before = readFileSync(logOf(dir));
    const { config, calls } = counted(dir);
    const error = await optimize(config).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunDirectoryError);
    expect((error as Error).message).toMatch(/log\.jsonl line 5: invalid JSON/);
    expect(calls).toEqual({ metric: 0, reflection: 0 });
    expect(readFileSync(logOf(dir)).equals(before)).toBe(true);
    expect(existsSync(join(dir, 'LOCK'))).toBe(false);
  });

  it('a record of the wrong shape is refused with its line number', async () => {
    const dir = copyOf(referenceDir, 'shape');
    const all = readFileSync(logOf(dir), 'utf8').split('\n');
    all[2] = '{"t":"eval","key":"x","evaluation":{"score":"high"}}';
    writeFileSync(logOf(dir), all.join('\n'));
    await expect(optimize(counted(dir).config)).rejects.toThrow(/log\.jsonl line 3: not a run log record: evaluation\.score/);
  });

  it('a different config is refused as a ConfigError naming each differing field, and nothing is written', async () => {
    const dir = copyOf(referenceDir, 'mismatch');
    const before = readdirSync(dir).map((f) => [f, readFileSync(join(dir, f)).toString('base64')]);
    const { config, calls } = counted(dir);
    const error = await optimize({ ...config, seed: 6, trainset: config.trainset.slice(1) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('seed: 5 in the run directory, 6 now');
    expect((error as Error).message).toContain('trainset: 60 examples in the run directory, 59 now');
    await expect(optimize({ ...config, valset: config.valset?.map((e, i) => (i === 0 ? { ...e, answer: 'changed' } : e)) })).rejects.toThrow(
      /valset: the same number of examples \(30\) but different content/,
    );
    await expect(optimize({ ...config, seedCandidate: { system_prompt: 'Be brief.' } })).rejects.toThrow(/seedCandidate: a different seed candidate/);
    await expect(optimize({ ...config, schedule: { kind: 'batched', parents: 2, perParent: 3 } })).rejects.toThrow(
      /schedule: \{"kind":"batched","parents":2,"perParent":2\} in the run directory, \{"kind":"batched","parents":2,"perParent":3\} now/,
    );
    expect(calls).toEqual({ metric: 0, reflection: 0 });
    expect(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f)).toString('base64')])).toEqual(before);
  });

  it('a run directory records the minibatch rule, and refuses another one given explicitly (old defaults: test/stepMinibatchesDefault.test.ts)', async () => {
    const dir = copyOf(referenceDir, 'older');
    const record = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { settings: Record<string, unknown> };
    expect(record.settings.stepMinibatches).toBe('sliding');
    const { config, calls } = counted(dir);
    expect(await optimize(config)).toEqual(reference);
    expect(calls).toEqual({ metric: 0, reflection: 0 });
    await expect(optimize({ ...config, stepMinibatches: 'fresh' })).rejects.toThrow(/stepMinibatches: "sliding" in the run directory, "fresh" now/);
  });

  it('the worker count may change: it never changes what a batched run computes', async () => {
    const { config, calls } = counted(referenceDir);
    expect(await optimize({ ...config, workers: 3 })).toEqual(reference);
    expect(calls.metric).toBe(0);
  });

  it('an invalid config writes nothing, whether zod or the machine refuses it', async () => {
    const dir = freshDir('invalid');
    const { config, calls } = counted(dir);
    await expect(optimize({ ...config, maxMetricCalls: undefined })).rejects.toThrow(/at least one stop condition is required/);
    await expect(optimize({ ...config, reflectionLm: 'no-such-model' })).rejects.toBeInstanceOf(ConfigError);
    await expect(optimize({ ...config, runDir: '' })).rejects.toThrow(/runDir: must name a directory/);
    expect(existsSync(dir)).toBe(false);
    expect(calls).toEqual({ metric: 0, reflection: 0 });
  });

  it('a directory a live run holds is refused', async () => {
    const dir = freshDir('locked');
    const first = optimize(durableRunConfig(dir));
    await expect(optimize(durableRunConfig(dir))).rejects.toThrow(/is in use by process/);
    expect(essence(await first)).toEqual(essence(reference));
    expect(existsSync(join(dir, 'LOCK'))).toBe(false);
  });
});

describe('graceful stop', () => {
  it('a STOP file stops the run after the work in flight, with a complete log; resuming continues to the same result', async () => {
    const dir = freshDir('stop');
    const first = counted(dir);
    const stopped = await optimize({
      ...first.config,
      // Asked for once the first candidate is in; the file is looked for every second.
      onEvent: (event) => {
        if (event.type === 'candidate.accepted' && event.index === 1) writeFileSync(join(dir, 'STOP'), '');
      },
    });
    expect(stopped.stopReason).toBe('stopped');
    expect(stopped.metricCalls).toBeLessThan(reference.metricCalls);
    const { records } = readRunLog(logOf(dir));
    expect(records.at(-1)).toEqual({ t: 'result', result: JSON.parse(JSON.stringify(stopped)) });
    // Nothing was left half done: every call that started is in the log.
    expect(records.filter((r) => r.t === 'eval')).toHaveLength(first.calls.metric);
    expect(first.calls.metric).toBe(stopped.metricCalls);
    // The request was honoured and consumed: resuming goes on, paying only for what is new.
    expect(existsSync(join(dir, 'STOP'))).toBe(false);
    const second = counted(dir);
    expect(essence(await optimize(second.config))).toEqual(essence(reference));
    expect(second.calls.metric).toBe(reference.metricCalls - stopped.metricCalls);
  });
});

describe('installSignalHandlers', () => {
  it('in a child process: the first signal drains, the second aborts, the third ends the process', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/signalChild.ts'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const waitFor = (text: string) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (out.includes(text)) {
            child.stdout?.off('data', check);
            resolve();
          }
        };
        child.stdout?.on('data', check);
        check();
      });
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    await waitFor('ready\n');
    child.kill('SIGINT');
    await waitFor('drain SIGINT\n');
    expect(out).not.toContain('abort');
    child.kill('SIGTERM');
    await waitFor('abort SIGTERM\n');
    child.kill('SIGINT');
    expect(await exited).toBe('SIGINT');
    expect(out).toBe('ready\ndrain SIGINT\nabort SIGTERM\n');
  });
});
