// MetricCallExecutor.evaluateBatch: an executor may run a candidate's minibatch (or a slice of its
// valset) as one job. A fake executor that runs every batch as one job (slots.runAll, holding a
// slot per example) gives a batched run the same result as the local executor's fan-out, while
// every example is still its own metric call: in the result, the run log and the budget, with its
// own call identity. A job that answers badly or throws is a recorded failure of each example.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { optimize } from '../src/index.js';
import { prepareRun } from '../src/run/prepareRun.js';
import { readRunLog } from '../src/storage/runLog.js';
import { runOnSimulatedClock, steppingClock, systemClock } from '../src/clock.js';
import { candidateHash } from '../src/gepa/core/candidateHash.js';
import { EvaluationService } from '../src/evaluation/evaluationService.js';
import { WorkerSlots, type SlotInterval } from '../src/evaluation/workerSlots.js';
import type { MetricCallExecutor } from '../src/executors/metricCallExecutor.js';
import type { Candidate, Evaluation } from '../src/gepa/core/adapter.js';
import { toyRunConfig } from './support/toyRun.js';

interface Job {
  size: number;
  /** `${hash}:${exampleId}:${traces}:${occurrence}` per example: the call identity a remote job id is made of. */
  calls: string[];
}

/** Runs every batch as one job through `inner`'s evaluate (a remote executor would send it to a worker). */
function oneJobPerBatch(inner: MetricCallExecutor<unknown>, answer?: (evaluations: Evaluation[]) => readonly unknown[]): MetricCallExecutor<unknown> & { jobs: Job[] } {
  const jobs: Job[] = [];
  return {
    jobs,
    evaluate: () => Promise.reject(new Error('this executor runs batches only')),
    evaluateBatch: (candidate, examples, ctx, slots) => {
      const hash = candidateHash(candidate);
      jobs.push({ size: examples.length, calls: examples.map((e) => `${hash}:${e.exampleId}:${ctx.captureTraces ? 1 : 0}:${e.call.occurrence}`) });
      return slots.runAll(async () => {
        const evaluations = await Promise.all(examples.map((e) => inner.evaluate(candidate, e.example, e.exampleId, ctx, e.call)));
        return answer ? answer(evaluations) : evaluations;
      });
    },
  };
}

async function toyBatchedRun(runDir: string, batchJobs: boolean) {
  const clock = steppingClock(new SimulatedClock());
  const { config } = toyRunConfig({ clock, workers: 8, maxMetricCalls: 120, reflectionMinibatchSize: 3, seed: 3, schedule: { kind: 'batched', parents: 2, perParent: 2 }, runDir, runIdentity: { reflectionLm: 'toy' } });
  const prepared = prepareRun(config);
  const executor = oneJobPerBatch(prepared.executor);
  const result = await runOnSimulatedClock(clock, optimize(batchJobs ? { ...prepared, executor } : prepared));
  return { result, jobs: executor.jobs, logged: readRunLog(join(runDir, 'log.jsonl')).records.filter((r) => r.t === 'eval').length };
}

describe('evaluateBatch: one job per minibatch', () => {
  it('gives a batched run the fan-out result, each example its own metric call in the result, the log and the budget', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gepa-batch-'));
    try {
      const local = await toyBatchedRun(join(dir, 'local'), false);
      const batched = await toyBatchedRun(join(dir, 'batched'), true);
      const { result } = batched;
      expect(result.failures?.total).toBe(0);
      // The same run: scores, candidates, the calls counted.
      expect(result.candidates).toEqual(local.result.candidates);
      expect(result.valSubscores).toEqual(local.result.valSubscores);
      expect(result.metricCalls).toBe(local.result.metricCalls);
      expect(result.discoveryMetricCalls).toEqual(local.result.discoveryMetricCalls);
      // One job per minibatch (3 examples) and per valset evaluation (6), never more than the 8 workers.
      const sizes = new Set(batched.jobs.map((j) => j.size));
      expect(sizes.has(3)).toBe(true);
      expect(sizes.has(6)).toBe(true);
      expect(Math.max(...sizes)).toBeLessThanOrEqual(8);
      expect(batched.jobs.length).toBeLessThan(result.metricCalls / 2);
      // Each example a metric call of its own: counted, logged, within the budget, with its own identity.
      const calls = batched.jobs.flatMap((j) => j.calls);
      expect(result.metricCalls).toBe(calls.length);
      expect(batched.logged).toBe(calls.length);
      expect(local.logged).toBe(calls.length);
      expect(result.metricCalls).toBeLessThanOrEqual(120);
      expect(new Set(calls).size).toBe(calls.length);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('evaluateBatch in the evaluation service', () => {
  const candidate: Candidate = { instructions: 'x' };
  const scored = (score: number): MetricCallExecutor<number> => ({ evaluate: async (_c, example) => ({ score: score * example }) });
  function service(executor: MetricCallExecutor<number>, onInterval?: (i: SlotInterval) => void) {
    const slots = new WorkerSlots({ capacity: 4, clock: systemClock, policy: 'fifo', ...(onInterval ? { onInterval } : {}) });
    const failures: string[] = [];
    const evaluations = new EvaluationService<number>({
      examples: [1, 2, 3, 4, 5, 6],
      executor,
      reflectionLm: async () => 'unused',
      slots,
      signal: new AbortController().signal,
      onFailure: (failure) => failures.push(failure.message),
    });
    return { evaluations, slots, failures };
  }
  const request = { candidate, hash: candidateHash(candidate), exampleIds: [0, 1, 2], captureTraces: false, kind: 'child' as const };

  it('holds one slot per example of a job, all of them from its start to its end', async () => {
    const intervals: SlotInterval[] = [];
    const executor = oneJobPerBatch(scored(0.1) as MetricCallExecutor<unknown>) as unknown as MetricCallExecutor<number>;
    const { evaluations, slots } = service(executor, (i) => intervals.push(i));
    const reply = await evaluations.evaluate(request);
    expect(reply.evaluations.map((e) => e.score)).toEqual([0.1, 0.2, 0.30000000000000004]);
    expect(reply.paidCalls).toBe(3);
    expect(evaluations.metricCalls).toBe(3);
    expect(intervals).toHaveLength(3);
    expect(new Set(intervals.map((i) => i.slot)).size).toBe(3);
    expect(new Set(intervals.map((i) => `${i.start}-${i.end}`)).size).toBe(1);
    expect(slots.maxInFlight).toBe(3);
  });

  it('splits a request larger than the slots into jobs of at most W examples', async () => {
    const executor = oneJobPerBatch(scored(1) as MetricCallExecutor<unknown>) as unknown as MetricCallExecutor<number> & { jobs: Job[] };
    const { evaluations, slots } = service(executor);
    const reply = await evaluations.evaluate({ ...request, exampleIds: [0, 1, 2, 3, 4, 5] });
    expect(reply.evaluations.map((e) => e.score)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(executor.jobs.map((j) => j.size)).toEqual([4, 2]);
    expect(slots.maxInFlight).toBeLessThanOrEqual(4);
  });

  it('gives each example of a job its own call identity: a traced pair asked again is its next occurrence', async () => {
    const executor = oneJobPerBatch(scored(1) as MetricCallExecutor<unknown>) as unknown as MetricCallExecutor<number> & { jobs: Job[] };
    const { evaluations } = service(executor);
    const traced = { ...request, exampleIds: [0, 1, 0], captureTraces: true };
    await evaluations.evaluate(traced);
    await evaluations.evaluate(traced);
    // In flight together, the twin of example 0 shares its call; asked again, each pair is called anew.
    const hash = request.hash;
    expect(executor.jobs.map((j) => j.calls)).toEqual([
      [`${hash}:0:1:0`, `${hash}:1:1:0`],
      [`${hash}:0:1:1`, `${hash}:1:1:1`],
    ]);
    expect(evaluations.metricCalls).toBe(4);
  });

  it('records a job that answers the wrong number of evaluations, or throws, as a failed call of each example', async () => {
    const short = service(oneJobPerBatch(scored(1) as MetricCallExecutor<unknown>, (e) => e.slice(1)) as unknown as MetricCallExecutor<number>);
    const reply = await short.evaluations.evaluate(request);
    expect(reply.evaluations.map((e) => e.score)).toEqual([0, 0, 0]);
    expect(reply.evaluations[0]?.feedback).toBe('The evaluation failed: the batch job answered 2 evaluations for 3 examples');
    expect(short.failures).toEqual(Array(3).fill('the batch job answered 2 evaluations for 3 examples'));
    expect(short.evaluations.metricCalls).toBe(3);

    const throwing: MetricCallExecutor<number> = { evaluate: () => Promise.reject(new Error('unused')), evaluateBatch: (_c, _e, _ctx, slots) => slots.runAll(() => Promise.reject(new TypeError('worker lost'))) };
    const thrown = service(throwing);
    const failed = await thrown.evaluations.evaluate(request);
    expect(failed.evaluations.map((e) => e.feedback)).toEqual(Array(3).fill('The evaluation failed with an error: worker lost'));
    expect(thrown.evaluations.metricCalls).toBe(3);
    expect(thrown.evaluations.failures.counts().total).toBe(3);
  });

  it("records an Error in an example's place in a job's answer as that call failing with it, as if its evaluate had thrown it", async () => {
    const oneFails: MetricCallExecutor<number> = {
      evaluate: () => Promise.reject(new Error('unused')),
      evaluateBatch: (_c, examples, _ctx, slots) => slots.runAll(async () => examples.map((e) => (e.exampleId === 1 ? new Error('example 1 broke') : { score: e.example }))),
    };
    const { evaluations, failures } = service(oneFails);
    const reply = await evaluations.evaluate(request);
    expect(reply.evaluations.map((e) => e.score)).toEqual([1, 0, 3]);
    expect(reply.evaluations[1]).toEqual({ score: 0, feedback: 'The evaluation failed with an error: example 1 broke', failure: { kind: 'adapter', message: 'example 1 broke' } });
    expect(failures).toEqual(['example 1 broke']);
    expect(evaluations.metricCalls).toBe(3);
  });

  it('runs a batch split into jobs by the places of their examples (runAll(job, places)), each example once', async () => {
    const jobs: number[][] = [];
    const refused: string[] = [];
    const inner = scored(1);
    const split: MetricCallExecutor<number> = {
      evaluate: inner.evaluate,
      evaluateBatch: async (c, examples, ctx, slots) => {
        const job = (places: number[]) => async () => (jobs.push(places.map((i) => examples[i]!.exampleId)), Promise.all(places.map((i) => inner.evaluate(c, examples[i]!.example, examples[i]!.exampleId, ctx))));
        const parts = await Promise.all([slots.runAll(job([2, 0]), [2, 0]), slots.runAll(job([1]), [1])]);
        // A place already run, or one the batch does not have, is refused: nothing runs twice.
        await slots.runAll(job([0]), [0]).catch((error: Error) => refused.push(error.message));
        await slots.runAll(job([7]), [7]).catch((error: Error) => refused.push(error.message));
        return [parts[0]![1]!, parts[1]![0]!, parts[0]![0]!];
      },
    };
    const { evaluations, slots } = service(split);
    const reply = await evaluations.evaluate(request);
    expect(reply.evaluations.map((e) => e.score)).toEqual([1, 2, 3]);
    expect(jobs).toEqual([[2, 0], [1]]);
    expect(refused).toEqual(['each example of a batch goes through the slots once', 'the batch of 3 has no examples at places 7']);
    expect(evaluations.metricCalls).toBe(3);
    expect(slots.maxInFlight).toBeLessThanOrEqual(3);
  });

  it('records an example the executor left out of its slots as a failed call, not a request that never ends', async () => {
    const forgetful: MetricCallExecutor<number> = {
      evaluate: async () => ({ score: 1 }),
      evaluateBatch: (c, examples, ctx, slots) => Promise.all(examples.slice(1).map((e, i) => slots.runOne(i + 1, () => forgetful.evaluate(c, e.example, e.exampleId, ctx, e.call)))),
    };
    const { evaluations } = service(forgetful);
    const reply = await evaluations.evaluate(request);
    expect(reply.evaluations.map((e) => e.score)).toEqual([0, 1, 1]);
    expect(reply.evaluations[0]?.feedback).toBe("The evaluation failed with an error: the executor's evaluateBatch did not run example 0");
    expect(evaluations.metricCalls).toBe(3);
  });
});
