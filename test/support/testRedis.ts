// Redis for tests: GEPA_TEST_REDIS_URL when set; otherwise a private redis-server on a free
// loopback port when the binary exists (stopped when the file ends); otherwise a reason to skip,
// printed once (a failure under CI=true).
// Also spawns `gepa-actors worker` processes and waits until each one is serving.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inCi, onPath } from './testPrograms.js';

export type TestRedis = { url: string; stop: () => Promise<void> } | { url: undefined; skipReason: string };

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

/** PING (after AUTH, with a password) until PONG or the deadline. */
async function waitForRedis(address: string, port: number, timeoutMs: number, password?: string): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const ok = await new Promise<boolean>((done) => {
      const socket = connect({ host: address, port }, () => socket.write(`${password === undefined ? '' : `AUTH ${password}\r\n`}PING\r\n`));
      let answer = '';
      socket.on('data', (d) => {
        answer += d.toString();
        if (password !== undefined && !answer.includes('\r\n', answer.indexOf('\r\n') + 2)) return;
        socket.destroy();
        done(answer.endsWith('+PONG\r\n'));
      });
      socket.once('error', () => done(false));
      // An address across a link that is down would hang until TCP gives up.
      socket.setTimeout(1000, () => {
        socket.destroy();
        done(false);
      });
    });
    if (ok) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/** A redis-server binary on PATH; under CI=true its absence throws (testPrograms.ts: CI must not pass by skipping). */
export const hasRedisServer = (): boolean => {
  if (onPath('redis-server', process.env)) return true;
  if (inCi()) throw new Error('CI=true but no redis-server is on PATH: bash .ci/setup-redis.sh installs it');
  return false;
};

/** Where startRedisServer's server listens besides loopback, and with which password. */
export interface RedisServerOptions {
  /** Reachable from other network namespaces on every address (benchmarks); never in tests. */
  bindAll?: boolean;
  /** Also listen on this address (e.g. the bridge of test/support/netnsHosts.ts). */
  alsoBind?: string;
  /** Run inside this stand-in host (netnsHosts.ts), listening on its address only. */
  host?: { address: string; wrapper: readonly string[] };
  /** Required of clients (a Redis other hosts reach should have one). */
  password?: string;
}

/** A redis-server of our own on a loopback port (no persistence); undefined if it does not answer. */
export async function startRedisServer(
  port?: number,
  options: RedisServerOptions = {},
): Promise<{ url: string; port: number; stop: () => Promise<void>; child: ChildProcess } | undefined> {
  // A free port here is free in a fresh namespace too.
  const chosen = port ?? (await freePort());
  const address = options.host?.address ?? '127.0.0.1';
  const bind = options.bindAll
    ? ['--bind', '0.0.0.0', '--protected-mode', 'no']
    : ['--bind', address, ...(options.alsoBind ? [options.alsoBind] : []), ...(address === '127.0.0.1' && !options.alsoBind ? [] : ['--protected-mode', 'no'])];
  const auth = options.password === undefined ? [] : ['--requirepass', options.password];
  const command = [...(options.host?.wrapper ?? []), 'redis-server', '--port', String(chosen), ...bind, ...auth, '--save', '', '--appendonly', 'no'];
  const server = spawn(command[0]!, command.slice(1), { stdio: 'ignore' });
  const exited = new Promise<void>((r) => server.once('exit', () => r()));
  if (!(await waitForRedis(address, chosen, 5000, options.password))) {
    server.kill('SIGKILL');
    return undefined;
  }
  const credentials = options.password === undefined ? '' : `:${encodeURIComponent(options.password)}@`;
  return {
    url: `redis://${credentials}${address}:${chosen}`,
    port: chosen,
    child: server,
    stop: async () => {
      server.kill('SIGKILL');
      await exited;
    },
  };
}

export async function testRedis(): Promise<TestRedis> {
  const fromEnv = process.env.GEPA_TEST_REDIS_URL;
  if (fromEnv) return { url: fromEnv, stop: async () => {} };
  if (!hasRedisServer()) {
    const skipReason = 'Redis tests skipped: GEPA_TEST_REDIS_URL is unset and no redis-server binary is on PATH (bash .ci/setup-redis.sh installs one)';
    console.warn(skipReason);
    return { url: undefined, skipReason };
  }
  const server = await startRedisServer();
  if (!server) {
    const skipReason = 'Redis tests skipped: the redis-server we started did not answer';
    console.warn(skipReason);
    return { url: undefined, skipReason };
  }
  return { url: server.url, stop: server.stop };
}

export interface WorkerProcess {
  child: ChildProcess;
  /** Everything it wrote to stderr (job failures, errors). */
  stderr: () => string;
  stop: (signal?: NodeJS.Signals) => Promise<void>;
}

/**
 * Spawns `src/worker/workerMain.ts` under tsx and resolves once it says it is ready (the timeout
 * guards against a start that hangs, it is no speed check: beside another test file on a loaded
 * machine a start has taken over 20 s). `wrapper` runs it through another command, e.g. ['ip',
 * 'netns', 'exec', 'gepa-h1'] for another "host"; `root`, another checkout's worker (benchmarks
 * comparing versions).
 */
export async function startWorkerProcess(args: string[], timeoutMs = 45_000, wrapper: string[] = [], root = ROOT): Promise<WorkerProcess> {
  const command = [...wrapper, process.execPath, '--import', 'tsx', 'src/worker/workerMain.ts', ...args];
  const child = spawn(command[0]!, command.slice(1), {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d) => (err += d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  await new Promise<void>((resolveReady, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`worker not ready after ${timeoutMs} ms: ${err}`)), timeoutMs);
    child.stdout!.on('data', (d) => {
      out += d.toString();
      if (out.includes('worker ready')) {
        clearTimeout(timer);
        resolveReady();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code} before it was ready: ${err}`));
    });
  });
  return {
    child,
    stderr: () => err,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/** What killWhenBusy reads of the queue: its active jobs and who holds them. */
interface ActiveJobs {
  getJobs(types: ['active'], start: number, end: number): Promise<Array<{ processedBy?: string }>>;
}

/**
 * Kills the worker process with SIGKILL the first moment it holds an active job of `queue`
 * (polling every 2 ms), unless `ended()` says the run is over first.
 */
export async function killWhenBusy(queue: ActiveJobs, victim: WorkerProcess, ended: () => boolean): Promise<void> {
  const victimName = `:${victim.child.pid}:`;
  while (!ended()) {
    const active = await queue.getJobs(['active'], 0, -1);
    if (active.some((job) => job.processedBy?.includes(victimName))) {
      victim.child.kill('SIGKILL');
      return;
    }
    await new Promise((r) => setTimeout(r, 2));
  }
}
