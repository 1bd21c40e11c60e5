// Metric calls as BullMQ jobs served by `gepa-actors worker` processes: a run on remote workers
// gives exactly the local run's result (same seed), also when a worker is killed mid-job (its
// jobs fail over to the others); a job
// that keeps failing becomes a score-0 call with the error; job ids make duplicates free; a worker
// whose adapter keeps its event loop busy is not taken for lost; an abort stops waiting. Needs Redis (GEPA_TEST_REDIS_URL, or a local redis-server binary).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { optimize, type OptimizeResult } from '../src/index.js';
import type { RerunNotice } from '../src/gepa/core/runEvent.js';
import { createBullmqExecutor } from '../src/executors/bullmqExecutor.js';
import { bullmqConnection } from '../src/executors/redisConnection.js';
import { EvaluationService } from '../src/evaluation/evaluationService.js';
import { candidateHash } from '../src/gepa/core/candidateHash.js';
import { systemClock } from '../src/clock.js';
import { WorkerSlots } from '../src/evaluation/workerSlots.js';
import { demoTask, failsOn, flakyAdapter } from './support/demoAdapterModule.js';
import { demoRunConfig, essence, workerArgs as demoWorkerArgs } from './support/demoRun.js';
import { killWhenBusy, startWorkerProcess, testRedis, type WorkerProcess } from './support/testRedis.js';

const redis = await testRedis();

describe.skipIf(redis.url === undefined)('bullmq executor with worker processes', () => {
  const url = redis.url as string;
  const demoQueue = `gepa-test-demo-${process.pid}`;
  const flakyQueue = `gepa-test-flaky-${process.pid}`;
  const idleQueue = `gepa-test-idle-${process.pid}`;
  const busyQueue = `gepa-test-busy-${process.pid}`;
  const connection = () => bullmqConnection(url);
  const workerArgs = (queue: string, adapter: string, concurrency: number) => demoWorkerArgs(url, queue, adapter, concurrency);
  let demoWorkers: WorkerProcess[] = [];
  let flakyWorkers: WorkerProcess[] = [];
  let localResult: OptimizeResult;

  beforeAll(async () => {
    [demoWorkers, flakyWorkers, localResult] = await Promise.all([
      // The third one, killed in the second test, is slow, so that it dies with jobs in hand.
      Promise.all(['adapter', 'adapter', 'slowAdapter'].map((name) => startWorkerProcess(workerArgs(demoQueue, name, 4)))),
      Promise.all([0, 1].map(() => startWorkerProcess(workerArgs(flakyQueue, 'flakyAdapter', 4)))),
      optimize(demoRunConfig()),
    ]);
    // Five worker processes starting at once beside another test file: a margin, not a speed check.
  }, 60_000);

  afterAll(async () => {
    await Promise.all([...demoWorkers, ...flakyWorkers].map((w) => w.stop()));
    for (const name of [demoQueue, flakyQueue, idleQueue, busyQueue]) {
      const queue = new Queue(name, { connection: connection() });
      await queue.obliterate({ force: true });
      await queue.close();
    }
    if (redis.url !== undefined) await redis.stop();
  }, 20_000);

  async function completedJobs(queueName: string): Promise<number> {
    const queue = new Queue(queueName, { connection: connection() });
    const counts = await queue.getJobCounts('completed');
    await queue.close();
    return counts.completed ?? 0;
  }

  it('a batched 2x2 run on three worker processes, a job per metric call (batchJobs false), gives exactly the local result', async () => {
    expect(localResult.candidates.length).toBeGreaterThan(2);
    const before = await completedJobs(demoQueue);
    const remote = await optimize(demoRunConfig({ executor: { kind: 'bullmq', connection: url, queue: demoQueue, batchJobs: false } }));
    expect(essence(remote)).toEqual(essence(localResult));
    expect((await completedJobs(demoQueue)) - before).toBe(remote.metricCalls);
    // Every worker process served some of it.
    const queue = new Queue(demoQueue, { connection: connection() });
    const jobs = await queue.getJobs(['completed'], 0, -1);
    await queue.close();
    const servedBy = new Set(jobs.map((job) => job.processedBy?.split(':')[1]));
    expect([...servedBy].sort()).toEqual(demoWorkers.map((w) => String(w.child.pid)).sort());
  });

  it('a worker SIGKILLed with jobs in hand (default locks of 30 s): its jobs run elsewhere within seconds, and the result is unchanged', async () => {
    const victim = demoWorkers[2]!;
    const victimName = `:${victim.child.pid}:`;
    const queue = new Queue(demoQueue, { connection: connection() });
    const reruns: RerunNotice[] = [];
    let killing: Promise<void> | undefined;
    let runEnded = false;
    // Once a third of the budget is spent, kill the victim at a moment it holds an active job.
    const remote = await optimize(
      demoRunConfig({
        executor: { kind: 'bullmq', connection: url, queue: demoQueue },
        onEvent: (event) => {
          if (event.type === 'budget.updated' && event.metricCalls >= 100) killing ??= killWhenBusy(queue, victim, () => runEnded);
          if (event.type === 'calls.rerun') reruns.push(event);
        },
      }),
    );
    runEnded = true;
    await killing;
    await victim.stop();
    await queue.close();
    expect(victim.child.signalCode).toBe('SIGKILL');
    // Failover, not BullMQ's stalled-job check (30 s + 30 s), moved them: the run would have taken a minute.
    expect(reruns.map((r) => [r.reason, r.workers])).toEqual([['worker lost', [expect.stringContaining(victimName)]]]);
    expect(reruns[0]!.calls).toBeGreaterThan(0);
    expect(reruns[0]!.keys).toHaveLength(reruns[0]!.calls);
    expect(essence(remote)).toEqual(essence(localResult));
  });

  it('an adapter that throws in the worker: retried, then a score-0 call with the error; the run matches the local one', async () => {
    const config = demoRunConfig({ adapter: flakyAdapter, maxMetricCalls: 200 });
    const local = await optimize(config);
    const remote = await optimize({ ...config, executor: { kind: 'bullmq', connection: url, queue: flakyQueue, attempts: 2, backoffMs: 10 } });
    expect(essence(remote)).toEqual(essence(local));
    const failingIndex = demoTask.valset.findIndex(failsOn);
    expect(failingIndex).toBeGreaterThanOrEqual(0);
    expect(remote.valSubscores.every((row) => row[failingIndex] === 0)).toBe(true);

    // The recorded call as a job of its own (batch jobs retry inside the job: bullmqBatchJobs.test.ts):
    // one paid call, score 0, the worker's error as feedback, two attempts.
    const executor = createBullmqExecutor({ connection: url, queue: flakyQueue, attempts: 2, backoffMs: 10, runId: `direct-${process.pid}`, batchJobs: false });
    const signal = new AbortController().signal;
    const service = new EvaluationService({
      examples: demoTask.valset,
      executor,
      reflectionLm: async () => '',
      slots: new WorkerSlots({ capacity: 4, clock: systemClock, policy: 'fifo' }),
      signal,
    });
    const candidate = demoTask.seedCandidate;
    const reply = await service.evaluate({ candidate, hash: candidateHash(candidate), exampleIds: [failingIndex], captureTraces: false, kind: 'valset' });
    await executor.close();
    const example = demoTask.valset[failingIndex]!;
    expect(reply.paidCalls).toBe(1);
    expect(reply.evaluations).toHaveLength(1);
    expect(reply.evaluations[0]).toMatchObject({ score: 0, feedback: `The evaluation failed with an error: simulated adapter failure on ${example.id}` });
    const queue = new Queue(flakyQueue, { connection: connection() });
    const failed = (await queue.getJobs(['failed'], 0, -1)).filter((job) => job.id?.startsWith(`direct-${process.pid}.`));
    await queue.close();
    expect(failed.map((job) => job.attemptsMade)).toEqual([2]);
  });

  it('a duplicate submission of the same call (same run id) is answered from the finished job, not run again', async () => {
    const ctx = { captureTraces: false, signal: new AbortController().signal };
    const example = demoTask.valset[0]!;
    const first = createBullmqExecutor({ connection: url, queue: demoQueue, runId: `dup-${process.pid}` });
    const a = await first.evaluate(demoTask.seedCandidate, example, 0, ctx);
    await first.close();
    const before = await completedJobs(demoQueue);
    // A second process of the same run (a resume) submits the same first occurrence again.
    const second = createBullmqExecutor({ connection: url, queue: demoQueue, runId: `dup-${process.pid}` });
    const b = await second.evaluate(demoTask.seedCandidate, example, 0, ctx);
    await second.close();
    expect(b).toEqual(a);
    expect(await completedJobs(demoQueue)).toBe(before);
  });

  it('a worker whose adapter keeps its event loop busy for seconds is not taken for lost: it beats from a thread', async () => {
    // Two calls of 1.5 s each without an await, one after the other: the worker's event loop is
    // busy for 3 s, six times the default workerLostMs; a beat from the event loop would stop.
    const busy = await startWorkerProcess(workerArgs(busyQueue, 'busyAdapter', 2));
    const notices: RerunNotice[] = [];
    const executor = createBullmqExecutor({ connection: url, queue: busyQueue, runId: `busy-${process.pid}`, onRerun: (n) => notices.push(n) });
    try {
      const ctx = { captureTraces: false, signal: new AbortController().signal };
      const answers = await Promise.all([0, 1].map((i) => executor.evaluate(demoTask.seedCandidate, demoTask.valset[i], i, ctx)));
      expect(notices).toEqual([]);
      expect(answers).toEqual(await Promise.all([0, 1].map((i) => demoTask.adapter.evaluate(demoTask.seedCandidate, demoTask.valset[i]!, ctx))));
      expect(busy.stderr()).not.toMatch(/answer dropped/);
    } finally {
      await executor.close();
      await busy.stop();
    }
  }, 30_000);

  it('an abort stops waiting at once and withdraws a job no worker has taken', async () => {
    const executor = createBullmqExecutor({ connection: url, queue: idleQueue, runId: `abort-${process.pid}` });
    const controller = new AbortController();
    const pending = executor.evaluate(demoTask.seedCandidate, demoTask.valset[0], 0, { captureTraces: false, signal: controller.signal });
    const queue = new Queue(idleQueue, { connection: connection() });
    // Jobs wait by priority (fair shares between runs): BullMQ counts them as 'prioritized'.
    const waiting = async () => (await queue.getWaitingCount()) + (await queue.getPrioritizedCount());
    for (let i = 0; i < 1000 && (await waiting()) !== 1; i++) await new Promise((r) => setTimeout(r, 5));
    expect(await waiting()).toBe(1);
    controller.abort(new Error('stop now'));
    await expect(pending).rejects.toThrow('stop now');
    for (let i = 0; i < 100 && (await waiting()) !== 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(await waiting()).toBe(0);
    await queue.close();
    await executor.close();
  });
});
