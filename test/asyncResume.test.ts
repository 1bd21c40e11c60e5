// Async resume pays nothing twice and never passes the budget: an async run in simulated time is
// cut short at seeded random instants (an abort stops it at once, as kill -9 would, with calls in
// flight lost) and resumed each time, and in the end every logged call is in the result and the
// result is within the budgets.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Rng } from '../src/gepa/core/rng.js';
import { optimize, type OptimizeResult, type ProposeNewTexts, type Schedule } from '../src/index.js';
import { canonicalJson } from '../src/identity/canonicalJson.js';
import { readRunLog } from '../src/storage/runLog.js';
import { killableSimulatedDemo } from './support/killableSimulatedDemo.js';

const scratch = mkdtempSync(join(tmpdir(), 'gepa-async-resume-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const BUDGET = 600;
const MAX_USD = 0.9;
const EVAL_USD = 0.001;
const REFLECT_USD = 0.004;

/** One process's part of the run: aborted at `abortAtMs` of simulated time (never when undefined). */
async function runOnce(runDir: string, seed: number, abortAtMs: number | undefined, paid: { calls: number }, failEvery?: number, proposeNewTexts?: ProposeNewTexts, schedule: Schedule = { kind: 'async', inFlight: 8 }): Promise<OptimizeResult> {
  const { clock, task, signal, run } = killableSimulatedDemo(1, abortAtMs);
  return run(
    optimize({
      seedCandidate: task.seedCandidate,
      trainset: task.trainset,
      valset: task.valset,
      // Priced at a fixed cost per call, which is also each call's reservation.
      adapter: Object.assign(
        {
          evaluate: async (...args: Parameters<typeof task.adapter.evaluate>) => {
            paid.calls++;
            if (failEvery !== undefined && paid.calls % failEvery === 0) throw Object.assign(new Error('HTTP 503 from the task model'), { costUsd: EVAL_USD });
            return { ...(await task.adapter.evaluate(...args)), costUsd: EVAL_USD };
          },
        },
        { estimateMaxCostUsd: () => EVAL_USD },
      ),
      reflectionLm: Object.assign(
        async (prompt: string, ctx: { signal: AbortSignal }) => {
          const reply = await task.reflectionLm(prompt, ctx);
          return { text: typeof reply === 'string' ? reply : reply.text, costUsd: REFLECT_USD };
        },
        { estimateMaxCostUsd: () => REFLECT_USD },
      ),
      runIdentity: { reflectionLm: 'demo' },
      ...(proposeNewTexts ? { proposeNewTexts } : {}),
      schedule,
      workers: 8,
      maxMetricCalls: BUDGET,
      maxCostUsd: MAX_USD,
      seed,
      runDir,
      clock,
      signal,
    }),
  );
}

function loggedWork(runDir: string): { calls: number; usd: number } {
  const { records } = readRunLog(join(runDir, 'log.jsonl'));
  let calls = 0;
  let usd = 0;
  for (const r of records) {
    if (r.t === 'eval') {
      calls++;
      usd += r.evaluation.costUsd ?? 0;
    } else if (r.t === 'reflect') usd += r.reply.costUsd ?? 0;
  }
  return { calls, usd };
}

describe('async resume after kills', () => {
  it.each([1, 2, 3, 4])('seed %i: six kills at random instants, resumed each time: logged calls = reported metricCalls <= budget, dollars likewise', async (seed) => {
    const runDir = join(scratch, `run-${seed}`);
    const rng = new Rng(1000 + seed);
    const paid = { calls: 0 };
    // Kills fall inside the first 80% of what an uninterrupted run has left (each resume starts its
    // clock at 0; the estimate is rough, so a kill near the end may come after the run is over).
    const reference = await runOnce(join(scratch, `reference-${seed}`), seed, undefined, { calls: 0 });
    let result: OptimizeResult | undefined;
    let kills = 0;
    for (let attempt = 0; attempt < 20; attempt++) {
      // A resumed run replays the log at once: what is left to run is about the share of calls not logged.
      const left = 1 - loggedWork(runDir).calls / reference.metricCalls;
      const abortAt = kills < 6 ? Math.floor((0.05 + 0.75 * rng.next()) * left * reference.elapsedMs) : undefined;
      result = await runOnce(runDir, seed, abortAt, paid);
      if (result.stopReason !== 'aborted') break;
      kills++;
      const logged = loggedWork(runDir);
      // Between kills too: what the log holds stays within the budgets.
      expect(logged.calls).toBeLessThanOrEqual(BUDGET);
      expect(logged.usd).toBeLessThanOrEqual(MAX_USD + 1e-9);
    }
    // A kill drawn after the run's end does not happen: most of the six must land.
    expect(kills).toBeGreaterThanOrEqual(5);
    const final = result as OptimizeResult;
    expect(final.stopReason).not.toBe('aborted');
    const logged = loggedWork(runDir);
    expect(final.metricCalls).toBe(logged.calls);
    expect(final.metricCalls).toBeLessThanOrEqual(BUDGET);
    expect(final.costUsd).toBeCloseTo(logged.usd, 9);
    expect(final.costUsd).toBeLessThanOrEqual(MAX_USD + 1e-9);
    // Paid more than logged only for the calls in flight at the kills (at most 8 workers each).
    expect(paid.calls - logged.calls).toBeLessThanOrEqual(kills * 8);
    expect(paid.calls).toBeGreaterThanOrEqual(logged.calls);
    // The run got somewhere: it found candidates beyond the seed.
    expect(final.candidates.length).toBeGreaterThan(1);
  });

  it('a resumed async run walks the logged path: the pool it had at the cut comes back in the same order, and only new work is paid', async () => {
    const runDir = join(scratch, 'walk');
    const paid = { calls: 0 };
    const reference = await runOnce(join(scratch, 'walk-reference'), 7, undefined, { calls: 0 });
    const first = await runOnce(runDir, 7, Math.floor(reference.elapsedMs * 0.6), paid);
    expect(first.stopReason).toBe('aborted');
    expect(first.candidates.length).toBeGreaterThan(2);
    const loggedAtCut = loggedWork(runDir).calls;
    const paidAtCut = paid.calls;
    const resumed = await runOnce(runDir, 7, undefined, paid);
    expect(resumed.candidates.slice(0, first.candidates.length)).toEqual(first.candidates);
    expect(resumed.parents.slice(0, first.parents.length)).toEqual(first.parents);
    expect(resumed.metricCalls).toBe(loggedWork(runDir).calls);
    expect(paid.calls - paidAtCut).toBe(resumed.metricCalls - loggedAtCut);
    expect(resumed.metricCalls).toBeLessThanOrEqual(BUDGET);
  });

  it("a run directory written before schedule.rebaseWait existed resumes as it started, deciding rebases at once ('none')", async () => {
    const before: Schedule = { kind: 'async', inFlight: 8, rebaseWait: 'none' };
    const reference = await runOnce(join(scratch, 'older-reference'), 5, undefined, { calls: 0 }, undefined, undefined, before);
    const cut = join(scratch, 'older-cut');
    expect((await runOnce(cut, 5, Math.floor(reference.elapsedMs * 0.6), { calls: 0 }, undefined, undefined, before)).stopReason).toBe('aborted');
    // As an older version wrote it: the async schedule without the field.
    const older = join(scratch, 'older');
    cpSync(cut, older, { recursive: true });
    const configFile = join(older, 'config.json');
    const record = JSON.parse(readFileSync(configFile, 'utf8')) as { settings: { schedule: Record<string, unknown> } };
    expect(record.settings.schedule.rebaseWait).toBe('none');
    delete record.settings.schedule.rebaseWait;
    writeFileSync(configFile, JSON.stringify(record));
    // Resumed without naming the setting (today's default waits): it goes on as it started, the
    // same run as the cut resumed with 'none' named.
    const named = join(scratch, 'older-named');
    cpSync(cut, named, { recursive: true });
    const resumed = await runOnce(older, 5, undefined, { calls: 0 });
    expect(resumed.stopReason).toBe('maxMetricCalls');
    expect(resumed).toEqual(await runOnce(named, 5, undefined, { calls: 0 }, undefined, undefined, before));
    // Named otherwise, it is another run: refused, nothing paid.
    const paid = { calls: 0 };
    const other = join(scratch, 'older-other');
    cpSync(cut, other, { recursive: true });
    writeFileSync(join(other, 'config.json'), JSON.stringify(record));
    await expect(runOnce(other, 5, undefined, paid, undefined, undefined, { kind: 'async', inFlight: 8, rebaseWait: 'ahead-in-flight' })).rejects.toThrow(
      /schedule: .*"rebaseWait":"none".* in the run directory, .*"rebaseWait":"ahead-in-flight".* now/,
    );
    expect(paid.calls).toBe(0);
  });

  it("the user's proposeNewTexts is asked once per input: a resumed run takes the logged answers", async () => {
    const runDir = join(scratch, 'proposer');
    let asked: string[] = [];
    // A proposer that adds a numbered rule: its answers differ from call to call, as an LLM's do.
    const proposer: ProposeNewTexts = async (candidate, dataset, components) => {
      asked.push(canonicalJson({ candidate, dataset, components }));
      const component = components[0] as string;
      return { [component]: `${candidate[component]} Rule ${asked.length}.` };
    };
    const reference = await runOnce(join(scratch, 'proposer-reference'), 3, undefined, { calls: 0 }, undefined, proposer);
    asked = [];
    const first = await runOnce(runDir, 3, Math.floor(reference.elapsedMs * 0.6), { calls: 0 }, undefined, proposer);
    expect(first.stopReason).toBe('aborted');
    const proposals = () => readRunLog(join(runDir, 'log.jsonl')).records.filter((r) => r.t === 'propose').length;
    const loggedAtCut = proposals();
    expect(loggedAtCut).toBeGreaterThan(5);
    const askedBefore = asked;
    asked = [];
    const resumed = await runOnce(runDir, 3, undefined, { calls: 0 }, undefined, proposer);
    expect(resumed.stopReason).toBe('maxMetricCalls');
    // Asked again only for what was in flight at the cut (at most 8 proposals), never for a logged
    // answer; each answer of the resumed process is logged once.
    expect(asked.filter((input) => askedBefore.includes(input)).length).toBeLessThanOrEqual(8);
    expect(askedBefore.length - loggedAtCut).toBeLessThanOrEqual(8);
    expect(proposals()).toBe(loggedAtCut + asked.length);
  });

  it('calls that failed before the cut were paid, and are paid again on resume: both are counted, within the budget', async () => {
    const runDir = join(scratch, 'failures');
    const paid = { calls: 0 };
    const reference = await runOnce(join(scratch, 'failures-reference'), 9, undefined, { calls: 0 });
    // Every 7th call of the first process fails (a flaky endpoint); the resumed process's do not.
    const first = await runOnce(runDir, 9, Math.floor(reference.elapsedMs * 0.6), paid, 7);
    expect(first.stopReason).toBe('aborted');
    const { records } = readRunLog(join(runDir, 'log.jsonl'));
    const failedAtCut = records.filter((r) => r.t === 'eval' && r.evaluation.failure !== undefined).length;
    expect(failedAtCut).toBeGreaterThan(5);
    const loggedAtCut = loggedWork(runDir).calls;
    const paidAtCut = paid.calls;
    const resumed = await runOnce(runDir, 9, undefined, paid);
    expect(resumed.stopReason).toBe('maxMetricCalls');
    // Every logged call is in metricCalls, the failed ones included; what this process paid is
    // exactly what it adds; and the whole, retries included, stays within the budget.
    expect(resumed.metricCalls).toBe(loggedWork(runDir).calls);
    expect(paid.calls - paidAtCut).toBe(resumed.metricCalls - loggedAtCut);
    expect(resumed.metricCalls).toBeLessThanOrEqual(BUDGET);
    expect(resumed.costUsd).toBeCloseTo(loggedWork(runDir).usd, 9);
  });
});
