// A BullMQ run that cannot make progress says so: jobs waiting with no worker on the queue give a
// 'warning' ("no worker on queue q"); Redis unreachable for maxRedisDownMs stops the run with
// stopReason 'error' naming Redis (resumable, its calls unlogged) instead of
// waiting forever; a wrong Redis password stops it at the seed. Redis tests need a redis-server;
// the outage ones a port where nothing listens.
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { Queue } from 'bullmq';
import { optimize, type RunEvent } from '../src/index.js';
import { createBullmqExecutor, RedisUnavailableError } from '../src/executors/bullmqExecutor.js';
import { bullmqConnection } from '../src/executors/redisConnection.js';
import { systemClock } from '../src/clock.js';
import { KEYWORDS, toyExamples, toyTask } from './support/toyTask.js';
import { failedRun } from './support/failedRun.js';
import { freePort, hasRedisServer, startRedisServer, testRedis } from './support/testRedis.js';
import { Redis } from 'ioredis';

const redis = await testRedis();
const signal = () => new AbortController().signal;
afterAll(async () => {
  if (redis.url !== undefined) await redis.stop();
});

describe.skipIf(redis.url === undefined)('no worker on the queue', () => {
  const url = redis.url as string;
  const queueName = `gepa-test-noworker-${process.pid}`;
  afterAll(async () => {
    const queue = new Queue(queueName, { connection: bullmqConnection(url) });
    await queue.obliterate({ force: true });
    await queue.close();
  }, 20_000);

  it('jobs waiting and none taken give a warning naming the queue', async () => {
    const warnings: string[] = [];
    let resolveWarned: () => void = () => {};
    const warned = new Promise<void>((resolve) => (resolveWarned = resolve));
    const executor = createBullmqExecutor({
      connection: url,
      queue: queueName,
      pollMs: 20,
      noWorkerWarningMs: 100,
      onWarning: (message) => {
        warnings.push(message);
        resolveWarned();
      },
    });
    const controller = new AbortController();
    const call = executor.evaluate({ p: 'x' }, { id: 1 }, 0, { captureTraces: false, signal: controller.signal }).catch((e: Error) => e);
    await warned;
    expect(warnings[0]).toMatch(new RegExp(`^no worker on queue "${queueName}": 1 job waiting for \\d+ s and none taken; start one with \`gepa-actors worker --queue ${queueName} ...\`$`));
    controller.abort(new Error('enough'));
    expect(await call).toBeInstanceOf(Error);
    await executor.close();
  }, 20_000);
});

describe.skipIf(!hasRedisServer())('Redis refusing the password', () => {
  it('a run stops with stopReason error naming the refusal, and pays nothing', async () => {
    // A Redis of its own that requires a password, given a wrong one.
    const server = (await startRedisServer())!;
    const admin = new Redis(server.port, '127.0.0.1');
    await admin.config('SET', 'requirepass', 'the-right-password');
    admin.disconnect();
    onTestFinished(() => server.stop());
    const { port } = server;
    const task = toyTask({ clock: systemClock, evalMs: () => 0 });
    const { result, message } = await failedRun(
      optimize({
        seedCandidate: { instructions: 'Answer.' },
        trainset: toyExamples('t', KEYWORDS.slice(0, 4)),
        adapter: task.adapter,
        reflectionLm: task.reflectionLm,
        maxMetricCalls: 40,
        executor: { kind: 'bullmq', connection: `redis://:not-the-password@127.0.0.1:${port}` },
      }),
    );
    expect(message).not.toContain('not-the-password');
    expect(result.error).toMatch(/^every call of the seed candidate's valset evaluation failed \(4 of 4\); the first: WRONGPASS/);
    expect(result.error).not.toContain('not-the-password');
    expect(task.evaluateCalls).toBe(0);
  }, 20_000);
});

describe('Redis gone for good', () => {
  it('the executor gives up after maxRedisDownMs with a connection error', async () => {
    const port = await freePort();
    const executor = createBullmqExecutor({ connection: `redis://127.0.0.1:${port}`, maxRedisDownMs: 300, onError: () => {} });
    const error = await executor.evaluate({ p: 'x' }, { id: 1 }, 0, { captureTraces: false, signal: signal() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedisUnavailableError);
    expect((error as Error).message).toMatch(new RegExp(`^Redis at 127\\.0\\.0\\.1:${port} unreachable for \\d+ s \\(.*ECONNREFUSED.*\\); the run stops and can be resumed once Redis is back$`));
    // Later calls fail at once.
    await expect(executor.evaluate({ p: 'y' }, { id: 2 }, 1, { captureTraces: false, signal: signal() })).rejects.toBeInstanceOf(RedisUnavailableError);
    await executor.close();
  }, 20_000);

  it('a run on it stops naming Redis, instead of waiting forever', async () => {
    const port = await freePort();
    const task = toyTask({ clock: systemClock, evalMs: () => 0 });
    const events: RunEvent[] = [];
    const run = optimize({
      seedCandidate: { instructions: 'Answer.' },
      trainset: toyExamples('t', KEYWORDS.slice(0, 4)),
      adapter: task.adapter,
      reflectionLm: task.reflectionLm,
      maxMetricCalls: 40,
      executor: { kind: 'bullmq', connection: `redis://127.0.0.1:${port}`, maxRedisDownMs: 300 },
      onEvent: (e) => events.push(e),
    });
    // Not four failed calls scored 0: the end of the run, named (nothing is logged, a resume makes
    // them again). No seed score exists, so there is no result to return.
    const cause = /Redis at 127\.0\.0\.1:\d+ unreachable for \d+ s \(.*\); the run stops and can be resumed once Redis is back$/;
    await expect(run).rejects.toThrow(/^the run stopped \(error\) before the seed candidate was evaluated/);
    await expect(run).rejects.toThrow(cause);
    expect(events.filter((e) => e.type === 'error').map((e) => (e as { message: string; systemic?: boolean }).systemic)).toEqual([true]);
    expect(task.evaluateCalls).toBe(0);
  }, 20_000);
});
