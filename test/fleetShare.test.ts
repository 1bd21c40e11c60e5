// Several runs on one fleet (one queue, its workers): a run's burst does not make another wait
// behind it (jobs are served in fair-queueing order, one of each run's in turn, src/executors/
// fairShare.ts), and cancelling a run withdraws its jobs no worker has taken while the other run
// goes on to its exact result. Needs Redis (testRedis.ts); workers run in this process.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setMaxListeners } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { optimize } from '../src/index.js';
import { createBullmqExecutor, runIdForDirectory } from '../src/executors/bullmqExecutor.js';
import { bullmqConnection } from '../src/executors/redisConnection.js';
import { runWorker, type RunningWorker } from '../src/worker/runWorker.js';
import type { Adapter } from '../src/gepa/core/adapter.js';
import { demoRunConfig, essence } from './support/demoRun.js';
import { demoTask } from './support/demoAdapterModule.js';
import { testRedis } from './support/testRedis.js';

const redis = await testRedis();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(redis.url === undefined)('runs sharing one fleet', () => {
  const url = redis.url as string;
  const queues: string[] = [];
  const dirs: string[] = [];
  const workers: RunningWorker[] = [];
  const queueNamed = (what: string) => {
    const name = `gepa-share-${what}-${process.pid}`;
    queues.push(name);
    return name;
  };

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.close()));
    for (const name of queues) {
      const queue = new Queue(name, { connection: bullmqConnection(url) });
      await queue.obliterate({ force: true });
      await queue.close();
    }
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    if (redis.url !== undefined) await redis.stop();
  }, 20_000);

  it("a run arriving behind another's burst is served in turn with it, not after it", async () => {
    const name = queueNamed('order');
    // One signal for all 16 calls, as a run's is (the run lifts the listener limit on its own).
    const signal = new AbortController().signal;
    setMaxListeners(0, signal);
    const served: string[] = [];
    const recorder: Adapter<unknown> = {
      evaluate: async (candidate, example) => {
        served.push(`${candidate.run}${(example as { i: number }).i}`);
        return { score: 1 };
      },
    };
    const calls = (run: 'A' | 'B', count: number) => {
      const executor = createBullmqExecutor({ connection: url, queue: name, runId: `order-${run}-${process.pid}` });
      const answers = Array.from({ length: count }, (_, i) => executor.evaluate({ run }, { i }, i, { captureTraces: false, signal }));
      return { executor, answers };
    };
    const queue = new Queue(name, { connection: bullmqConnection(url) });
    const waiting = async () => (await queue.getWaitingCount()) + (await queue.getPrioritizedCount());
    // A bursts 12 calls; B, arriving behind them, asks for 4; then one worker, one job at a time.
    const a = calls('A', 12);
    for (let i = 0; i < 1000 && (await waiting()) < 12; i++) await sleep(5);
    const b = calls('B', 4);
    for (let i = 0; i < 1000 && (await waiting()) < 16; i++) await sleep(5);
    workers.push(await runWorker({ adapter: recorder, redis: url, queue: name, concurrency: 1 }));
    await Promise.all([...a.answers, ...b.answers]);
    await Promise.all([a.executor.close(), b.executor.close(), queue.close()]);
    // In arrival order (first come, first served) B would have waited for all of A's 12.
    expect(served).toEqual(['A0', 'A1', 'B0', 'A2', 'B1', 'A3', 'B2', 'A4', 'B3', 'A5', 'A6', 'A7', 'A8', 'A9', 'A10', 'A11']);
  });

  it('cancelling one of two runs withdraws its waiting jobs; the other ends with its exact result', async () => {
    const name = queueNamed('cancel');
    const runDir = mkdtempSync(join(tmpdir(), 'gepa-share-'));
    dirs.push(runDir);
    const configB = demoRunConfig({ seed: 12 });
    const [localA, fleet] = await Promise.all([
      optimize(demoRunConfig()),
      // Fewer slots (4) than the two runs' calls out (8 each): jobs wait.
      Promise.all([0, 1].map(() => runWorker({ adapter: demoTask.adapter as Adapter<unknown>, redis: url, queue: name, concurrency: 2 }))),
    ]);
    workers.push(...fleet);
    const queue = new Queue(name, { connection: bullmqConnection(url) });
    const waitingOfB = async () => (await queue.getJobs(['waiting', 'prioritized'], 0, -1)).filter((job) => job.id?.startsWith(`${runIdForDirectory(runDir)}.`)).length;
    const cancelB = new AbortController();
    let waitingAtCancel: Promise<number> | undefined;
    const [remoteA, cancelled] = await Promise.all([
      optimize(demoRunConfig({ executor: { kind: 'bullmq', connection: url, queue: name } })),
      optimize({
        ...configB,
        runDir,
        executor: { kind: 'bullmq', connection: url, queue: name },
        signal: cancelB.signal,
        onEvent: (event) => {
          if (event.type !== 'budget.updated' || event.metricCalls < 60 || waitingAtCancel) return;
          // Cancelled at a moment it has jobs waiting (between steps it has none).
          waitingAtCancel = (async () => {
            for (let i = 0; i < 2000; i++) {
              const n = await waitingOfB();
              if (n > 0 || cancelB.signal.aborted) return cancelB.abort(new Error('cancelled')), n;
              await sleep(1);
            }
            cancelB.abort(new Error('cancelled'));
            return 0;
          })();
        },
      }),
    ]);
    expect(await waitingAtCancel).toBeGreaterThan(0);
    expect(cancelled.stopReason).toBe('aborted');
    expect(await waitingOfB()).toBe(0);
    expect(essence(remoteA)).toEqual(essence(localA));
    await queue.close();
  });
});
