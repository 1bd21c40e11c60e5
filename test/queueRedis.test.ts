// Failover's moves, on a real Redis (src/executors/queueRedis.ts): a job held by a worker that
// looks lost is moved back to the head of the queue with that worker's lock deleted, so the
// worker's late answer is refused and another worker's is the one kept; a job lost too often is
// failed for good with the reason, not retried; a job already answered is left alone. The
// "lost" worker here is alive and in this process: its adapter waits until the test lets it go.
import { afterAll, describe, expect, it } from 'vitest';
import { Job, Queue, UnrecoverableError } from 'bullmq';
import { bullmqConnection } from '../src/executors/redisConnection.js';
import { failoverRedis, rawRedis } from '../src/executors/queueRedis.js';
import { METRIC_CALL_JOB, type MetricBatchJobData, type MetricCallJobData } from '../src/executors/metricCallJob.js';
import { runWorker, type RunningWorker } from '../src/worker/runWorker.js';
import type { Adapter } from '../src/gepa/core/adapter.js';
import { testRedis } from './support/testRedis.js';

const redis = await testRedis();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(redis.url === undefined)("failover's moves in Redis", () => {
  const url = redis.url as string;
  const names: string[] = [];
  const workers: RunningWorker[] = [];

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.close()));
    for (const name of names) {
      const queue = new Queue(name, { connection: bullmqConnection(url) });
      await queue.obliterate({ force: true });
      await queue.close();
    }
    if (redis.url !== undefined) await redis.stop();
  }, 20_000);

  /** A queue with one job, held by a worker whose adapter answers `score` once let go. */
  async function heldJob(what: string) {
    const name = `gepa-moves-${what}-${process.pid}`;
    names.push(name);
    const queue = new Queue<MetricCallJobData | MetricBatchJobData, unknown>(name, { connection: bullmqConnection(url) });
    let letGo: () => void = () => {};
    const released = new Promise<void>((resolve) => (letGo = resolve));
    const logs: string[] = [];
    const held: Adapter<unknown> = { evaluate: async () => (await released, { score: 0.25 }) };
    workers.push(await runWorker({ adapter: held, redis: url, queue: name, log: (line) => logs.push(line) }));
    const data: MetricCallJobData = { candidate: { p: 'x' }, example: { i: 0 }, exampleId: 0, captureTraces: false };
    await queue.add(METRIC_CALL_JOB, data, { jobId: 'call-1', priority: 7, attempts: 3 });
    for (let i = 0; i < 500 && (await queue.getJobState('call-1')) !== 'active'; i++) await sleep(5);
    expect(await queue.getJobState('call-1')).toBe('active');
    const moves = failoverRedis(queue, await rawRedis(queue), { Job, UnrecoverableError });
    return { name, queue, moves, letGo, logs };
  }

  it("moves a job back to the head of the queue; the first worker's late answer is refused, the second's kept", async () => {
    const { name, queue, moves, letGo, logs } = await heldJob('back');
    expect(await moves.owners(['call-1', 'no-such-job'])).toEqual([workers.at(-1)!.name, undefined]);
    expect(await moves.moveBack('call-1')).toBe(true);
    // Ahead of every prioritized job, its lock gone.
    expect(await queue.getJobState('call-1')).toBe('waiting');
    expect(await (await rawRedis(queue)).get(`${queue.toKey('call-1')}:lock`)).toBeNull();
    // Another worker takes it from the head and answers; the first one's answer, let go now, is refused.
    workers.push(await runWorker({ adapter: { evaluate: async () => ({ score: 1 }) }, redis: url, queue: name }));
    for (let i = 0; i < 500 && (await queue.getJobState('call-1')) !== 'completed'; i++) await sleep(5);
    letGo();
    for (let i = 0; i < 200 && !logs.some((l) => l.startsWith('answer dropped')); i++) await sleep(5);
    expect(logs.find((l) => l.startsWith('answer dropped'))).toMatch(/^answer dropped, the run had moved the job to another worker \(this one looked lost\): .* for job call-1\. moveToFinished/);
    expect((await queue.getJob('call-1'))?.returnvalue).toEqual({ score: 1 });
    // Answered: nothing to move any more.
    expect(await moves.moveBack('call-1')).toBe(false);
  });

  it('fails a job lost too often for good, with the reason, and does not retry it', async () => {
    const { queue, moves, letGo } = await heldJob('fail');
    expect(await moves.fail('call-1', 'lost with its worker 3 times')).toBe(true);
    const job = await queue.getJob('call-1');
    expect([await queue.getJobState('call-1'), job?.failedReason]).toEqual(['failed', 'lost with its worker 3 times']);
    letGo();
    await sleep(50);
    expect(await queue.getJobState('call-1')).toBe('failed');
  });
});
