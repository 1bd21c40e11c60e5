// Workers on other hosts, and what goes wrong there: Redis and each `gepa-actors worker` run in a
// network namespace of their own (test/support/netnsHosts.ts), so every call crosses a veth link.
// Faults, each while a worker holds jobs: kill -9; SIGSTOP (hung), then SIGCONT after the run,
// whose late answers are refused; its link cut and restored; Redis killed and restarted empty
// (the run says it waits, and goes on), and Redis gone past maxRedisDownMs (the run fails naming
// Redis, and --resume is exact). Each run gives the undisturbed run's result, spends no more
// than its budget, answers each of its calls exactly once in Redis, and logs the calls it ran
// again. Default worker and executor settings throughout. Root only: elsewhere a printed reason.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { optimize, type OptimizeResult } from '../src/index.js';
import { bullmqConnection } from '../src/executors/redisConnection.js';
import { runIdForDirectory } from '../src/executors/bullmqExecutor.js';
import type { OptimizeConfig } from '../src/config/optimizeConfig.js';
import type { RunEvent } from '../src/gepa/core/runEvent.js';
import type { DemoExample } from '../src/demo/demoTask.js';
import { createNetnsHosts, netnsSupport, type NetnsHost, type NetnsHosts } from './support/netnsHosts.js';
import { hasRedisServer, startRedisServer, startWorkerProcess, type WorkerProcess } from './support/testRedis.js';
import { demoRunConfig, essence, workerArgs } from './support/demoRun.js';

const support = netnsSupport();
if (!support.ok) console.warn(`fleet fault tests skipped: ${support.reason}`);
const canRun = support.ok && hasRedisServer();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A run that ended in an error may reject with its partial result (RunFailedError) or resolve with it. */
const outcome = (run: Promise<OptimizeResult>) => run.catch((error: { result?: OptimizeResult }) => (error?.result ? error.result : Promise.reject(error)));

describe.skipIf(!canRun)('workers on other hosts: faults cost seconds and never change the result', () => {
  const password = `fleet-${process.pid}`;
  const queueName = `gepa-fleet-${process.pid}`;
  let hosts: NetnsHosts;
  let redisHost: NetnsHost;
  let redis: Awaited<ReturnType<typeof startRedisServer>>;
  let port: number;
  let url: string;
  // Two quick workers and one slow one (100 ms a call): the slow one always holds jobs, and is the victim.
  let quick: WorkerProcess[] = [];
  let slow: WorkerProcess;
  let slowHost: NetnsHost;
  let local: OptimizeResult;
  const dirs: string[] = [];

  const startWorker = (adapter: string, host: NetnsHost) => startWorkerProcess(workerArgs(`redis://:${password}@${redisHost.address}:${port}`, queueName, adapter, 4), 30_000, [...host.wrapper]);
  const startRedis = async (at?: number) => {
    redis = await startRedisServer(at, { host: redisHost, password });
    if (!redis) throw new Error('redis-server did not start in its namespace');
  };

  beforeAll(async () => {
    hosts = createNetnsHosts();
    redisHost = hosts.addHost();
    await startRedis();
    port = redis!.port;
    url = redis!.url;
    const [a, b] = [hosts.addHost(), hosts.addHost()];
    slowHost = hosts.addHost();
    [quick, slow, local] = await Promise.all([Promise.all([startWorker('adapter', a), startWorker('adapter', b)]), startWorker('slowAdapter', slowHost), optimize(demoRunConfig())]);
  }, 60_000);

  afterAll(async () => {
    for (const w of [...quick, slow]) if (w) w.child.kill('SIGCONT');
    await Promise.all([...quick, slow].filter(Boolean).map((w) => w.stop('SIGKILL')));
    await redis?.stop();
    hosts?.destroy();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }, 20_000);

  /** Resolves once the slow worker holds a job of the queue (it always does within a few calls). */
  async function slowHoldsJobs(): Promise<void> {
    const queue = new Queue(queueName, { connection: bullmqConnection(url) });
    try {
      for (let i = 0; i < 2000; i++) {
        const active = await queue.getJobs(['active'], 0, -1);
        if (active.some((job) => job.processedBy?.includes(`:${slow.child.pid}:`))) return;
        await sleep(2);
      }
      throw new Error('the slow worker took no job');
    } finally {
      await queue.close();
    }
  }

  /** This run's jobs that Redis holds as completed. */
  async function completedJobs(runDir: string): Promise<number> {
    const queue = new Queue(queueName, { connection: bullmqConnection(url) });
    const jobs = await queue.getJobs(['completed'], 0, -1);
    await queue.close();
    return jobs.filter((job) => job.id?.startsWith(`${runIdForDirectory(runDir)}.`)).length;
  }

  const logRecords = (runDir: string) => readFileSync(join(runDir, 'log.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { t: string; workers?: string[]; calls?: number; keys?: string[] });

  /** Runs the demo task on the fleet in a fresh run directory, injecting `fault` once 100 calls are paid. */
  async function faultyRun(fault: () => Promise<void>, extra: Partial<OptimizeConfig<DemoExample>> = {}) {
    const runDir = mkdtempSync(join(tmpdir(), 'gepa-fleet-'));
    dirs.push(runDir);
    const events: RunEvent[] = [];
    let injected: Promise<void> | undefined;
    const result = await outcome(
      optimize(
        demoRunConfig({
          runDir,
          executor: { kind: 'bullmq', connection: url, queue: queueName },
          onEvent: (event) => {
            events.push(event);
            if (event.type === 'budget.updated' && event.metricCalls >= 100) injected ??= fault();
          },
          ...extra,
        }),
      ),
    );
    await injected;
    return { runDir, result, events };
  }

  /** The same result as the undisturbed run, within budget, each call answered once, the failover logged. */
  async function expectExactWithFailover(runDir: string, result: OptimizeResult, events: RunEvent[]) {
    expect(essence(result)).toEqual(essence(local));
    expect(result.metricCalls).toBeLessThanOrEqual(300);
    expect(await completedJobs(runDir)).toBe(result.metricCalls);
    const reruns = events.filter((e) => e.type === 'calls.rerun');
    expect(reruns.map((e) => e.reason)).toContain('worker lost');
    const logged = logRecords(runDir).filter((r) => r.t === 'rerun');
    expect(logged.map((r) => r.workers)).toEqual(reruns.map((e) => e.workers));
    expect(logged.every((r) => r.workers!.some((w) => w.includes(`:${slow.child.pid}:`)) && r.keys!.length === r.calls)).toBe(true);
    return logged;
  }

  it('kill -9 of a worker holding jobs: they run on the others within seconds', async () => {
    const victim = slow;
    const { runDir, result, events } = await faultyRun(async () => {
      await slowHoldsJobs();
      victim.child.kill('SIGKILL');
    });
    await victim.stop();
    expect(victim.child.signalCode).toBe('SIGKILL');
    await expectExactWithFailover(runDir, result, events);
    slow = await startWorker('slowAdapter', slowHost);
  });

  it('SIGSTOP of a worker holding jobs (hung): the run goes on without it; after SIGCONT its late answers are refused', async () => {
    const victim = slow;
    const { runDir, result, events } = await faultyRun(async () => {
      await slowHoldsJobs();
      victim.child.kill('SIGSTOP');
    });
    const logged = await expectExactWithFailover(runDir, result, events);
    victim.child.kill('SIGCONT');
    // Its jobs were moved with their locks: each answer it now sends is refused, and it says so.
    const movedJobs = logged.reduce((sum, r) => sum + r.calls!, 0);
    for (let i = 0; i < 250 && (victim.stderr().match(/answer dropped/g) ?? []).length < movedJobs; i++) await sleep(20);
    expect((victim.stderr().match(/answer dropped/g) ?? []).length).toBeGreaterThanOrEqual(movedJobs);
    expect(await completedJobs(runDir)).toBe(result.metricCalls);
  });

  it("a worker's link cut while it holds jobs, restored after the run: no answer of it is taken twice", async () => {
    const { runDir, result, events } = await faultyRun(async () => {
      await slowHoldsJobs();
      hosts.cut(slowHost);
    });
    await expectExactWithFailover(runDir, result, events);
    hosts.restore(slowHost);
    // Back on the network, it finishes what it held; Redis refuses those answers.
    for (let i = 0; i < 250 && !/answer dropped/.test(slow.stderr()); i++) await sleep(20);
    expect(await completedJobs(runDir)).toBe(result.metricCalls);
  });

  it('Redis killed and restarted empty: the run says it waits, and goes on with the same result', async () => {
    const { runDir, result, events } = await faultyRun(async () => {
      await redis!.stop();
      await sleep(500);
      await startRedis(port);
    });
    expect(essence(result)).toEqual(essence(local));
    expect(result.metricCalls).toBeLessThanOrEqual(300);
    const warnings = events.flatMap((e) => (e.type === 'warning' ? [e.message] : []));
    expect(warnings[0]).toMatch(new RegExp(`^Redis at ${redisHost.address.replace(/\./g, '\\.')}:${port} unreachable \\(.*\\): \\d+ metric calls? wait for it; the run goes on when it is back`));
    expect(warnings.some((w) => /^Redis at .* answers again after \d+\.\d s; \d+ jobs? it had lost submitted again; the run goes on$/.test(w))).toBe(true);
    expect(runDir).toBeTruthy();
  });

  it('Redis gone past maxRedisDownMs: the run fails naming Redis, and resuming once it is back gives the same result', async () => {
    const extra = { executor: { kind: 'bullmq' as const, connection: url, queue: queueName, maxRedisDownMs: 1000 } };
    const { runDir, result } = await faultyRun(async () => {
      await redis!.stop();
      redis = undefined;
    }, extra);
    expect(result.stopReason).toBe('error');
    expect(result.error).toMatch(/Redis at .* unreachable for \d+ s/);
    await startRedis(port);
    const resumed = await optimize(demoRunConfig({ runDir, ...extra }));
    expect(essence(resumed)).toEqual(essence(local));
  });
});
