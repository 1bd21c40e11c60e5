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

/** PING until PONG or the deadline. */
async function waitForRedis(port: number, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const ok = await new Promise<boolean>((done) => {
      const socket = connect({ host: '127.0.0.1', port }, () => socket.write('PING\r\n'));
      socket.once('data', (d) => {
        socket.destroy();
        done(d.toString().startsWith('+PONG'));
      });
      socket.once('error', () => done(false));
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

/** A redis-server of our own on a loopback port (no persistence); undefined if it does not answer. */
export async function startRedisServer(
  port?: number,
  options: { bindAll?: boolean } = {},
): Promise<{ url: string; port: number; stop: () => Promise<void> } | undefined> {
  const chosen = port ?? (await freePort());
  // bindAll: reachable from other network namespaces (benchmarks); never in tests.
  const bind = options.bindAll ? ['--bind', '0.0.0.0', '--protected-mode', 'no'] : ['--bind', '127.0.0.1'];
  const server = spawn('redis-server', ['--port', String(chosen), ...bind, '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const exited = new Promise<void>((r) => server.once('exit', () => r()));
  if (!(await waitForRedis(chosen, 5000))) {
    server.kill('SIGKILL');
    return undefined;
  }
  return {
    url: `redis://127.0.0.1:${chosen}`,
    port: chosen,
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
 * Spawns `src/worker/workerMain.ts` under tsx and resolves once it says it is ready. `wrapper`
 * runs it through another command, e.g. ['ip', 'netns', 'exec', 'gepa-h1'] for another "host".
 */
export async function startWorkerProcess(args: string[], timeoutMs = 20_000, wrapper: string[] = []): Promise<WorkerProcess> {
  const command = [...wrapper, process.execPath, '--import', 'tsx', 'src/worker/workerMain.ts', ...args];
  const child = spawn(command[0]!, command.slice(1), {
    cwd: ROOT,
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
