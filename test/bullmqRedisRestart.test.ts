// Redis restarting mid-run without persistence (every queued and active job lost): the bullmq
// executor submits the lost jobs again, the workers reconnect, and the run's result is still
// exactly the local one; a Redis that is not up yet is waited for. Needs a redis-server binary
// (private servers are started and restarted here).
import { describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { optimize, type Adapter } from '../src/index.js';
import { createBullmqExecutor } from '../src/executors/bullmqExecutor.js';
import { runWorker } from '../src/worker/runWorker.js';
import { bullmqConnection } from '../src/executors/redisConnection.js';
import { demoRunConfig, essence, workerArgs } from './support/demoRun.js';
import { demoTask } from './support/demoAdapterModule.js';
import { freePort, hasRedisServer, startRedisServer, startWorkerProcess } from './support/testRedis.js';

const canRun = hasRedisServer();
if (!canRun) console.warn('Redis restart test skipped: no redis-server binary on PATH (bash .ci/setup-redis.sh installs one)');

describe.skipIf(!canRun)('bullmq executor across a Redis restart', () => {
  it('a Redis crash and restart mid-run: lost jobs are submitted again and the result equals the local run', async () => {
    let server = await startRedisServer();
    if (!server) throw new Error('redis-server did not start');
    const { url, port } = server;
    const queue = `gepa-test-restart-${process.pid}`;
    const workers = await Promise.all([0, 1].map(() => startWorkerProcess(workerArgs(url, queue, 'adapter', 4))));
    try {
      const local = await optimize(demoRunConfig());
      let restart: Promise<void> | undefined;
      let callsAtRestart = 0;
      const remote = await optimize(
        demoRunConfig({
          executor: { kind: 'bullmq', connection: url, queue },
          onEvent: (event) => {
            if (event.type !== 'budget.updated' || event.metricCalls < 100 || restart) return;
            callsAtRestart = event.metricCalls;
            restart = (async () => {
              await server!.stop();
              await new Promise((r) => setTimeout(r, 300));
              server = await startRedisServer(port);
            })();
          },
        }),
      );
      await restart;
      expect(callsAtRestart).toBeGreaterThanOrEqual(100);
      expect(callsAtRestart).toBeLessThan(remote.metricCalls);
      expect(essence(remote)).toEqual(essence(local));
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      if (server) {
        const q = new Queue(queue, { connection: bullmqConnection(url) });
        await q.obliterate({ force: true });
        await q.close();
        await server.stop();
      }
    }
  }, 60_000);

  it('Redis not up yet when calls start: the executor waits for it instead of failing them', async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const errors: string[] = [];
    const executor = createBullmqExecutor({ connection: url, queue: 'late', onError: (e) => errors.push(e.message) });
    const signal = new AbortController().signal;
    const pending = executor.evaluate(demoTask.seedCandidate, demoTask.valset[0], 0, { captureTraces: false, signal });
    await new Promise((r) => setTimeout(r, 600));
    const server = await startRedisServer(port);
    const worker = await runWorker({ adapter: demoTask.adapter as Adapter<unknown>, redis: url, queue: 'late' });
    try {
      expect(await pending).toEqual(await demoTask.adapter.evaluate(demoTask.seedCandidate, demoTask.valset[0]!, { captureTraces: false, signal }));
      expect(errors.length).toBeGreaterThan(0);
      expect(errors[0]).toContain('ECONNREFUSED');
    } finally {
      await executor.close();
      await worker.close();
      await server?.stop();
    }
  });
});
