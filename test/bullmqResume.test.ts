// The optimizer process killed mid-run with its metric calls out on BullMQ workers: resuming
// from the run directory replays what the log holds and re-attaches to the jobs that finished
// after the kill (same job ids), so no job runs twice and the result equals the local run's. Jobs
// are the default batch jobs (a minibatch or valset slice each): a resumed run asks the same batches.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { optimize, type OptimizeResult } from '../src/index.js';
import { bullmqConnection } from '../src/executors/redisConnection.js';
import { METRIC_BATCH_JOB, type MetricBatchJobData } from '../src/executors/metricCallJob.js';
import { demoRunConfig, essence, workerArgs } from './support/demoRun.js';
import { startWorkerProcess, testRedis, type WorkerProcess } from './support/testRedis.js';

const redis = await testRedis();

describe.skipIf(redis.url === undefined)('resuming a killed optimizer on BullMQ workers', () => {
  const url = redis.url as string;
  const queueName = `gepa-test-resume-${process.pid}`;
  const runDir = mkdtempSync(join(tmpdir(), 'gepa-bullmq-resume-'));
  let workers: WorkerProcess[] = [];
  let local: OptimizeResult;

  beforeAll(async () => {
    [workers, local] = await Promise.all([
      Promise.all([0, 1].map(() => startWorkerProcess(workerArgs(url, queueName, 'adapter', 4)))),
      optimize(demoRunConfig()),
    ]);
  }, 30_000);

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    const queue = new Queue(queueName, { connection: bullmqConnection(url) });
    await queue.obliterate({ force: true });
    await queue.close();
    rmSync(runDir, { recursive: true, force: true });
    if (redis.url !== undefined) await redis.stop();
  }, 20_000);

  it('pays no job twice and ends with the local result', async () => {
    const queue = new Queue(queueName, { connection: bullmqConnection(url) });
    // Metric calls in completed jobs: a batch job (the default) holds one per example.
    const completed = async () => (await queue.getJobs(['completed'], 0, -1)).reduce((sum, job) => sum + (job.name === METRIC_BATCH_JOB ? (job.data as MetricBatchJobData).examples.length : 1), 0);
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/bullmqOptimizerChild.ts', runDir, url, queueName], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // Kill it once a good part of the run is done, with jobs out on the workers.
    const killAt = Math.floor(local.metricCalls / 3);
    for (let waited = 0; (await completed()) < killAt; waited += 20) {
      if (waited > 20_000) throw new Error(`only ${await completed()} jobs completed`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill('SIGKILL');
    await exited;
    const atKill = await completed();
    expect(atKill).toBeLessThan(local.metricCalls);

    const resumed = await optimize(demoRunConfig({ runDir, executor: { kind: 'bullmq', connection: url, queue: queueName } }));
    expect(essence(resumed)).toEqual(essence(local));
    // Every metric call ran in exactly one job, across both processes.
    expect(await completed()).toBe(local.metricCalls);
    await queue.close();
  }, 60_000);
});
