// optimizeAnything's batchEvaluator: one call scores a batch of examples (a minibatch, a slice of
// the valset of at most `workers`), each example still a metric call of its own. A run with it is
// the same run as with the equivalent per-example evaluator (batched and async schedules: same
// candidates, scores, metric calls), within the budget; a wrong-length answer or a bad element is
// a failed call of that example, named; a throw a failed call of each; bad options are refused.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { runOnSimulatedClock, steppingClock } from '../src/clock.js';
import { readRunLog } from '../src/storage/runLog.js';
import { optimizeAnything, RunFailedError, type OptimizeAnythingResult, type Schedule } from '../src/index.js';
import { createAnythingAdapter } from '../src/adapters/anything/anythingAdapter.js';
import type { EvaluatorResult } from '../src/adapters/anything/sideInfo.js';
import { appendingReflection, wordScore, WORDS } from './support/anythingTask.js';

const same = (r: OptimizeAnythingResult<string>) => ({ candidates: r.candidates, valScores: r.valScores, valSubscores: r.valSubscores, parents: r.parents, metricCalls: r.metricCalls, proposals: r.proposals, stopReason: r.stopReason, bestScore: r.bestScore });

function generalization(schedule: Schedule, batched: boolean) {
  const batches: number[] = [];
  // Simulated time: the async schedule's order is then the run's own, not the machine's.
  const clock = steppingClock(new SimulatedClock());
  const common = { clock, seedCandidate: 'w', dataset: ['alpha', 'beta', 'gamma'], valset: [...WORDS], reflectionLm: appendingReflection(), schedule, workers: 3, maxMetricCalls: 47, seed: 3 };
  const run = batched
    ? optimizeAnything({
        ...common,
        batchEvaluator: async (c: string, words: readonly string[]) => {
          batches.push(words.length);
          return words.map((word) => wordScore(c, word));
        },
      })
    : optimizeAnything({ ...common, evaluator: (c: string, word: string) => wordScore(c, word) });
  return runOnSimulatedClock(clock, run).then((result) => ({ result, batches }));
}

describe('batchEvaluator', () => {
  for (const schedule of [{ kind: 'batched', parents: 2, perParent: 2 }, { kind: 'async', inFlight: 2 }] as Schedule[]) {
    it(`gives the per-example evaluator's run, one call per minibatch or valset slice, within the budget (${schedule.kind})`, async () => {
      const [each, batched] = await Promise.all([generalization(schedule, false), generalization(schedule, true)]);
      expect(batched.result.failures?.total ?? 0).toBe(0);
      if (schedule.kind === 'batched') expect(same(batched.result)).toEqual(same(each.result));
      else {
        // Async launches a reflection when a slot frees: a batch frees its slots together, so near the
        // end of the budget it may launch one reflection more, which proposes nothing (skipped, no
        // metric call). Everything evaluated is the same.
        const evaluated = (r: OptimizeAnythingResult<string>) => ({ ...same(r), proposals: r.proposals.filter((p) => p.outcome !== 'skipped') });
        expect(evaluated(batched.result)).toEqual(evaluated(each.result));
        expect(batched.result.proposals.length - each.result.proposals.length).toBeLessThanOrEqual(1);
      }
      expect(batched.result.bestScore).toBe(0.75);
      // Every example a metric call: the batches' sizes add up to the calls counted, never over the budget.
      expect(batched.batches.reduce((a, b) => a + b, 0)).toBe(batched.result.metricCalls);
      expect(batched.result.metricCalls).toBeLessThanOrEqual(47);
      // A minibatch (3) or a valset slice (at most 3 workers) per call: far fewer calls than examples scored.
      expect(Math.max(...batched.batches)).toBeLessThanOrEqual(3);
      expect(batched.batches).toContain(3);
      expect(batched.batches.length).toBeLessThan(batched.result.metricCalls / 2);
    });
  }

  it('a throwing batchEvaluator fails each example of the call: the run rejects, naming what it threw', async () => {
    const run = optimizeAnything({
      seedCandidate: 'w',
      batchEvaluator: () => {
        throw new TypeError('harness is not a function');
      },
      dataset: [...WORDS],
      reflectionLm: appendingReflection(),
      maxMetricCalls: 20,
    });
    const error = await run.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunFailedError);
    expect((error as RunFailedError).message).toContain('harness is not a function');
    expect((error as RunFailedError).result.failures?.total).toBe(4);
    expect((error as RunFailedError).result.metricCalls).toBe(4);
  });

  it('keeps a log record per example, and a resumed run sends no example again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gepa-batch-eval-'));
    try {
      const scored: string[] = [];
      const run = (maxMetricCalls: number) =>
        optimizeAnything({
          seedCandidate: 'w',
          batchEvaluator: (c: string, words: readonly string[]) => {
            scored.push(...words.map((w) => `${c}|${w}`));
            return words.map((word) => wordScore(c, word));
          },
          dataset: [...WORDS],
          reflectionLm: appendingReflection(),
          maxMetricCalls,
          seed: 3,
          runDir: dir,
          runIdentity: { reflectionLm: 'appending' },
        });
      const first = await run(16);
      const logged = readRunLog(join(dir, 'log.jsonl')).records.filter((r) => r.t === 'eval').length;
      expect(logged).toBe(first.metricCalls);
      expect(scored.length).toBe(first.metricCalls);
      const before = scored.length;
      const resumed = await run(40);
      expect(scored.length - before).toBe(resumed.metricCalls - first.metricCalls);
      expect(resumed.metricCalls).toBeGreaterThan(first.metricCalls);
      expect(resumed.metricCalls).toBeLessThanOrEqual(40);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('with failFast, a throw rejects the run', async () => {
    const run = optimizeAnything({ seedCandidate: 'w', batchEvaluator: () => Promise.reject(new Error('harness down')), dataset: [...WORDS], reflectionLm: appendingReflection(), maxMetricCalls: 20, failFast: true });
    await expect(run).rejects.toThrow(RunFailedError);
  });

  it('names a wrong-length answer for every example, a bad element for its own example', async () => {
    const ctx = { captureTraces: false, signal: new AbortController().signal };
    const adapterFor = (answer: unknown) =>
      createAnythingAdapter<string>({ batchEvaluator: () => answer as EvaluatorResult[], mode: 'multi-task', stringCandidate: true, failFast: false });
    const short = await adapterFor([1, 1]).evaluateBatch!({ candidate: 'x' }, ['a', 'b', 'c'], ctx);
    expect(short.map((e) => e.failure?.message)).toEqual(Array(3).fill('the batchEvaluator returned 2 results for 3 examples, not one number or { score, sideInfo } per example'));
    const notAList = await adapterFor(0.5).evaluateBatch!({ candidate: 'x' }, ['a', 'b'], ctx);
    expect(notAList[0]?.failure?.message).toBe('the batchEvaluator returned 0.5 for 2 examples, not one number or { score, sideInfo } per example');
    const bad = await adapterFor([1, NaN, { score: 0.5, sideInfo: 'x' }]).evaluateBatch!({ candidate: 'x' }, ['a', 'b', 'c'], ctx);
    expect(bad.map((e) => e.score)).toEqual([1, 0, 0]);
    expect(bad[0]?.failure).toBeUndefined();
    expect(bad[1]?.failure).toEqual({ kind: 'invalid-score', message: 'the batchEvaluator returned NaN for example 2 of 3, not a finite number or { score, sideInfo }' });
    expect(bad[2]?.failure?.message).toBe('the batchEvaluator\'s answer for example 3 of 3: sideInfo must be a record, got "x"');
    const threw = await createAnythingAdapter<string>({ batchEvaluator: () => Promise.reject(new RangeError('no GPU')), mode: 'multi-task', stringCandidate: true, failFast: false }).evaluateBatch!({ candidate: 'x' }, ['a', 'b'], ctx);
    expect(threw.map((e) => e.feedback)).toEqual(['The batchEvaluator threw RangeError: no GPU', 'The batchEvaluator threw RangeError: no GPU']);
  });

  it('refuses both evaluators, neither, no dataset, and a remote executor, before any call', async () => {
    const base = { seedCandidate: 'w', reflectionLm: appendingReflection(), maxMetricCalls: 10 };
    const batchEvaluator = (_c: string, words: readonly string[]) => words.map(() => 1);
    await expect(optimizeAnything({ ...base, dataset: ['a'], batchEvaluator, evaluator: () => 1 })).rejects.toThrow(
      'invalid optimizeAnything options: batchEvaluator: cannot be given with evaluator: give one of them (evaluator scores one example per call, batchEvaluator many)',
    );
    await expect(optimizeAnything({ ...base, dataset: ['a'] })).rejects.toThrow('invalid optimizeAnything options: evaluator: must be a function (candidate, example, ctx) => number | { score, sideInfo }, or give batchEvaluator instead');
    await expect(optimizeAnything({ ...base, batchEvaluator })).rejects.toThrow(
      'invalid optimizeAnything options: batchEvaluator: needs a dataset: single-task search calls the evaluator without an example, so there is no batch of examples (give evaluator instead)',
    );
    await expect(optimizeAnything({ ...base, dataset: ['a'], batchEvaluator, executor: { kind: 'bullmq', connection: { host: '127.0.0.1', port: 1 } } })).rejects.toThrow(
      'invalid optimizeAnything options: batchEvaluator: cannot run on the bullmq executor yet (its workers score one example per job): use the local executor, or give evaluator instead',
    );
    await expect(optimizeAnything({ ...base, dataset: ['a'], batchEvaluator: 'x' as never })).rejects.toThrow('invalid optimizeAnything options: batchEvaluator: must be a function (candidate, examples, ctx) => one number or { score, sideInfo } per example');
  });
});
