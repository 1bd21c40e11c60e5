// The bullmq executor's batchJobs: a minibatch (or valset slice) travels as ONE job, and the run is
// exactly the run with a job per example: the same result, metric calls, failures (an example
// whose adapter throws is a failed call of that example, tried as often), events, call records and
// log records. The same small optimize() runs twice on a real Redis, once per mode, each on its own
// queue served by in-process workers, and the jobs in Redis are counted: one per batch the
// evaluation service handed to the executor; a resumed run's executor asking a batch again finds
// its job (the id is made of the examples' call ids) and pays nothing twice; a worker killed -9
// holding batch jobs loses them to another worker as whole jobs, each counted as all its calls; a
// worker's concurrency counts metric calls, not jobs. batchJobs 'auto' (the default) is the same
// run again, its batches split into jobs of at most the smallest worker's concurrency (its beats
// say it), and a job per call while it knows no worker. Needs Redis (see test/support/testRedis.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { optimize } from '../src/index.js';
import { prepareRun } from '../src/run/prepareRun.js';
import { readRunLog } from '../src/storage/runLog.js';
import { runWorker, type RunningWorker } from '../src/worker/runWorker.js';
import { bullmqConnection } from '../src/executors/redisConnection.js';
import { METRIC_BATCH_JOB, METRIC_CALL_JOB, type BatchExampleAnswer, type MetricBatchJobData } from '../src/executors/metricCallJob.js';
import type { BatchSlots, MetricCallExecutor } from '../src/executors/metricCallExecutor.js';
import { createBullmqExecutor, runIdForDirectory } from '../src/executors/bullmqExecutor.js';
import type { Adapter, Evaluation } from '../src/gepa/core/adapter.js';
import type { RerunNotice, RunEvent } from '../src/gepa/core/runEvent.js';
import type { CallRecord } from '../src/evaluation/callRecord.js';
import { flakyAdapter, slowAdapter } from './support/demoAdapterModule.js';
import { demoRunConfig, essence, workerArgs } from './support/demoRun.js';
import { killWhenBusy, startWorkerProcess, testRedis } from './support/testRedis.js';

const redis = await testRedis();

/** Sorted JSON texts: the same things, whatever order real concurrency finished them in. */
const asSet = (items: readonly unknown[]): string[] => items.map((item) => JSON.stringify(item)).sort();

describe.skipIf(redis.url === undefined)('bullmq executor: a job per minibatch (batchJobs)', () => {
  const url = redis.url as string;
  const queues = {
    perExample: `gepa-test-percall-${process.pid}`,
    batch: `gepa-test-batch-${process.pid}`,
    auto: `gepa-test-batchauto-${process.pid}`,
    failover: `gepa-test-batchfail-${process.pid}`,
    unserved: `gepa-test-batchnone-${process.pid}`,
  };
  let workers: RunningWorker[] = [];
  let dir: string;


  // The most metric calls each batch-queue worker ran at once.
  const peaks = [0, 0];
  const counted = (i: number): Adapter<unknown> => {
    let running = 0;
    return {
      ...(flakyAdapter as Adapter<unknown>),
      evaluate: async (...args) => {
        peaks[i] = Math.max(peaks[i]!, ++running);
        try {
          return await flakyAdapter.evaluate(...(args as Parameters<typeof flakyAdapter.evaluate>));
        } finally {
          running--;
        }
      },
    };
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gepa-batchjobs-'));
    // Two in-process workers per queue; the adapter throws on about one example in ten. The batch
    // queue's run 4 calls at once: batch jobs of up to 8 examples wait their turn in them.
    workers = await Promise.all([
      ...[queues.perExample, queues.perExample].map((queue) => runWorker({ adapter: flakyAdapter as never, redis: url, queue, concurrency: 8 })),
      ...[0, 1].map((i) => runWorker({ adapter: counted(i), redis: url, queue: queues.batch, concurrency: 4 })),
      // 'auto' sizes its jobs by the smaller of these: 3 calls.
      ...[3, 4].map((concurrency) => runWorker({ adapter: flakyAdapter as never, redis: url, queue: queues.auto, concurrency })),
    ]);
  }, 30_000);

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.close()));
    for (const name of Object.values(queues)) {
      const queue = new Queue(name, { connection: bullmqConnection(url) });
      await queue.obliterate({ force: true });
      await queue.close();
    }
    await rm(dir, { recursive: true, force: true });
    if (redis.url !== undefined) await redis.stop();
  }, 20_000);

  // Each mode runs once (its run directory names its jobs); the tests compare them.
  const runs = new Map<string, ReturnType<typeof runOnce>>();
  const run = (mode: 'perExample' | 'batch' | 'auto') => runs.get(mode) ?? runs.set(mode, runOnce(mode)).get(mode)!;

  async function runOnce(mode: 'perExample' | 'batch' | 'auto') {
    const events: RunEvent[] = [];
    const records: CallRecord[] = [];
    const runDir = join(dir, mode);
    const prepared = prepareRun(
      demoRunConfig({
        maxMetricCalls: 120,
        runDir,
        onEvent: (event) => events.push(event),
        // A failing example is tried twice, 1 ms apart, in either mode.
        executor: { kind: 'bullmq', connection: url, queue: queues[mode], attempts: 2, backoffMs: 1, batchJobs: mode === 'auto' ? 'auto' : mode === 'batch' },
      }),
    );
    const inner = prepared.executor as MetricCallExecutor<unknown>;
    const batches: number[][] = [];
    const executor: MetricCallExecutor<unknown> = {
      ...inner,
      ...(inner.evaluateBatch
        ? {
            evaluateBatch: (candidate, examples, ctx, slots) => {
              batches.push(examples.map((e) => e.exampleId));
              return inner.evaluateBatch!(candidate, examples, ctx, slots);
            },
          }
        : {}),
    };
    const result = await optimize({ ...prepared, executor, onCall: (call) => records.push(call) });
    const queue = new Queue(queues[mode], { connection: bullmqConnection(url) });
    const jobs = await queue.getJobs(['completed', 'failed'], 0, -1);
    await queue.close();
    const logged = readRunLog(join(runDir, 'log.jsonl')).records.filter((r) => r.t === 'eval');
    return { result, events, records, batches, jobs, logged };
  }

  it('gives the per-example run exactly: result, metric calls, failures, events, call records, log; one job per batch', async () => {
    const perExample = await run('perExample');
    const batch = await run('batch');
    const { result } = batch;

    // The per-example run: a job per metric call, some of them failed calls.
    expect(perExample.batches).toEqual([]);
    expect(perExample.jobs.every((job) => job.name === METRIC_CALL_JOB)).toBe(true);
    expect(perExample.jobs).toHaveLength(perExample.result.metricCalls);
    expect(perExample.result.failures?.total).toBeGreaterThan(0);

    // The same run.
    expect(essence(result)).toEqual(essence(perExample.result));
    expect(result.metricCalls).toBe(perExample.result.metricCalls);
    expect(result.failures).toEqual(perExample.result.failures);
    expect(asSet(batch.logged)).toEqual(asSet(perExample.logged));
    expect(batch.logged).toHaveLength(result.metricCalls);
    const callFacts = (records: CallRecord[]) => records.filter((r) => r.channel === 'metric').map(({ startMs: _s, endMs: _e, ...facts }) => facts);
    expect(asSet(callFacts(batch.records))).toEqual(asSet(callFacts(perExample.records)));
    // The events that carry evaluations and verdicts, without their wall-clock times.
    const ended = (events: RunEvent[]) =>
      events
        .filter((e) => e.type === 'evaluation.ended' || e.type === 'seed.evaluated' || e.type === 'candidate.accepted' || e.type === 'candidate.rejected')
        .map((e) => ({ ...e, elapsedMs: undefined }));
    expect(ended(batch.events).length).toBeGreaterThan(0);
    expect(asSet(ended(batch.events))).toEqual(asSet(ended(perExample.events)));

    // A failed example is a failed call of that example, with the adapter's error, as with a job per example.
    const failed = batch.logged.filter((r) => r.evaluation.failure !== undefined);
    expect(failed.length).toBe(result.failures?.total);
    expect(failed[0]?.evaluation.feedback).toMatch(/^The evaluation failed with an error: simulated adapter failure on /);

    // One job per batch (a minibatch, or a valset slice of at most W = 8), each answering all its examples.
    expect(batch.jobs.every((job) => job.name === METRIC_BATCH_JOB && job.finishedOn !== undefined && job.failedReason === undefined)).toBe(true);
    expect(batch.jobs).toHaveLength(batch.batches.length);
    expect(asSet(batch.jobs.map((job) => (job.data as { exampleIds: number[] }).exampleIds))).toEqual(asSet(batch.batches));
    const sizes = batch.batches.map((b) => b.length);
    expect(sizes).toContain(3);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(8);
    // A worker's concurrency counts calls, not jobs: never more than 4 at once, though jobs of more came.
    expect(Math.max(...sizes)).toBeGreaterThan(4);
    expect(Math.max(...peaks)).toBe(4);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(result.metricCalls);
    expect(batch.jobs.length).toBeLessThan(result.metricCalls / 2);
    // The failing examples were among them, tried twice each in their job.
    expect(batch.jobs.some((job) => (job.returnvalue as Array<{ ok: boolean }>).some((answer) => !answer.ok))).toBe(true);

    // A resumed run (same directory, so the same run id) asking the same batch finds the same job:
    // the seed's first valset slice, untraced, occurrence 0. No job is added; its answer comes back.
    const seedJob = batch.jobs.find((job) => JSON.stringify(job.data.candidate) === JSON.stringify(demoRunConfig().seedCandidate) && !job.data.captureTraces);
    expect(seedJob).toBeDefined();
    const data = seedJob!.data as unknown as MetricBatchJobData;
    const resumed = createBullmqExecutor({ connection: url, queue: queues.batch, runId: runIdForDirectory(join(dir, 'batch')), batchJobs: true });
    try {
      const slots: BatchSlots = { runOne: () => Promise.reject(new Error('a batch job, not a call each')), runAll: async (job) => (await job()) as Evaluation[] };
      const examples = data.examples.map((example, i) => ({ example, exampleId: data.exampleIds[i] as number, call: { occurrence: 0 } }));
      const answers = await resumed.evaluateBatch!(data.candidate, examples, { captureTraces: false, signal: new AbortController().signal }, slots);
      expect(answers).toEqual((seedJob!.returnvalue as BatchExampleAnswer[]).map((a) => (a.ok ? a.evaluation : new Error(a.error))));
    } finally {
      await resumed.close();
    }
    const queue = new Queue(queues.batch, { connection: bullmqConnection(url) });
    expect(await queue.getJobs(['completed', 'failed', 'waiting', 'active'], 0, -1)).toHaveLength(batch.jobs.length);
    await queue.close();
  }, 30_000);

  it("'auto' gives the per-example run exactly, its batches split into jobs of at most the smallest worker's concurrency", async () => {
    const perExample = await run('perExample');
    const auto = await run('auto');
    expect(essence(auto.result)).toEqual(essence(perExample.result));
    expect(auto.result.metricCalls).toBe(perExample.result.metricCalls);
    expect(auto.result.failures).toEqual(perExample.result.failures);
    expect(asSet(auto.logged)).toEqual(asSet(perExample.logged));
    expect(auto.logged).toHaveLength(auto.result.metricCalls);
    // Every example of every batch went in exactly one job: batch jobs of 2-3 examples (the
    // smaller worker runs 3 at once), a job per call for a part of one.
    const jobExamples = auto.jobs.map((job) => (job.name === METRIC_BATCH_JOB ? (job.data as MetricBatchJobData).exampleIds : [(job.data as { exampleId: number }).exampleId]));
    expect(jobExamples.flat()).toHaveLength(auto.result.metricCalls);
    const batchJobs = auto.jobs.filter((job) => job.name === METRIC_BATCH_JOB);
    expect(batchJobs.length).toBeGreaterThan(0);
    expect(batchJobs.every((job) => job.failedReason === undefined && [2, 3].includes((job.data as MetricBatchJobData).exampleIds.length))).toBe(true);
    expect(Math.max(...auto.batches.map((b) => b.length))).toBeGreaterThan(3);
    expect(auto.jobs.length).toBeLessThan(auto.result.metricCalls / 2);
  }, 30_000);

  it("'auto' sends a job per call while it knows no worker, and sizes jobs once one beats", async () => {
    const executor = createBullmqExecutor({ connection: url, queue: queues.unserved, batchJobs: 'auto' });
    const signal = new AbortController().signal;
    const used: string[] = [];
    const slots: BatchSlots = {
      runOne: (_index, call) => (used.push('one'), call()),
      runAll: async (job, places) => (used.push(`all:${places?.length ?? 'every'}`), (await job()) as Evaluation[]),
    };
    const { trainset, seedCandidate } = demoRunConfig();
    const examples = (from: number) => Array.from({ length: 6 }, (_, i) => ({ example: trainset[i], exampleId: i, call: { occurrence: from / 6 } }));
    let worker: RunningWorker | undefined;
    try {
      const first = executor.evaluateBatch!(seedCandidate, examples(0), { captureTraces: false, signal }, slots);
      // Sized before any worker beat: a job per call; a worker started once they are sent serves them.
      for (let i = 0; i < 200 && used.length < 6; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      worker = await runWorker({ adapter: slowAdapter as never, redis: url, queue: queues.unserved, concurrency: 4 });
      expect((await first).length).toBe(6);
      expect(used).toEqual(['one', 'one', 'one', 'one', 'one', 'one']);
      // Batches after the executor has read the worker's beat: two jobs of 3 (6 split evenly by 4).
      for (let from = 6; from < 6 * 40 && !used.includes('all:3'); from += 6) {
        used.length = 0;
        await executor.evaluateBatch!(seedCandidate, examples(from), { captureTraces: false, signal }, slots);
      }
      expect(used).toEqual(['all:3', 'all:3']);
    } finally {
      await executor.close();
      await worker?.close();
    }
  }, 30_000);

  it('a worker SIGKILLed holding batch jobs: each moves to another worker as one, the notice counts all its calls, the result is unchanged', async () => {
    const local = await optimize(demoRunConfig({ maxMetricCalls: 120 }));
    // A worker process to kill (slow, so that it dies with jobs in hand) and an in-process one that stays.
    const victim = await startWorkerProcess(workerArgs(url, queues.failover, 'slowAdapter', 4));
    workers.push(await runWorker({ adapter: slowAdapter as never, redis: url, queue: queues.failover, concurrency: 4 }));
    const victimName = `:${victim.child.pid}:`;
    const queue = new Queue(queues.failover, { connection: bullmqConnection(url) });
    const reruns: RerunNotice[] = [];
    let killing: Promise<void> | undefined;
    let runEnded = false;
    try {
      const remote = await optimize(
        demoRunConfig({
          maxMetricCalls: 120,
          executor: { kind: 'bullmq', connection: url, queue: queues.failover, batchJobs: true },
          onEvent: (event) => {
            if (event.type === 'budget.updated' && event.metricCalls >= 30) killing ??= killWhenBusy(queue, victim, () => runEnded);
            if (event.type === 'calls.rerun') reruns.push(event);
          },
        }),
      );
      runEnded = true;
      await killing;
      expect(victim.child.signalCode).toBe('SIGKILL');
      expect(reruns.map((r) => [r.reason, r.workers])).toEqual([['worker lost', [expect.stringContaining(victimName)]]]);
      // Every job is a batch of at least 3 examples (a minibatch, or a valset slice), each counted.
      expect(reruns[0]!.calls).toBeGreaterThanOrEqual(3);
      expect(reruns[0]!.keys).toHaveLength(reruns[0]!.calls);
      expect(essence(remote)).toEqual(essence(local));
      const jobs = await queue.getJobs(['completed', 'failed'], 0, -1);
      expect(jobs.every((job) => job.name === METRIC_BATCH_JOB && job.failedReason === undefined)).toBe(true);
    } finally {
      runEnded = true;
      await killing;
      await victim.stop();
      await queue.close();
    }
  }, 60_000);
});
