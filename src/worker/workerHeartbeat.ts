// A worker process's heartbeat: every HEARTBEAT_MS it stamps its name in the queue's beat set
// (src/executors/workerBeats.ts), so the runs' executors know within a quarter to half a second when it
// is gone, frozen or cut off, and run its calls elsewhere. It beats from a thread of its own with
// its own Redis connection: an adapter that keeps the event loop busy for seconds does not stop
// the beats, so a busy worker is never taken for a lost one (a call that hangs on a live worker
// is the executor's "call overdue" rule). A killed or frozen process stops every thread, and a
// cut link cuts both connections, so those are lost as before. The thread runs plain JavaScript
// evaluated from BEAT_THREAD_SOURCE: it needs no TypeScript loader (tsx, vitest) to start, and
// only ioredis, which BullMQ runs on already. It reports its recent gaps between beats (the
// third longest of the last minute: a process starved of CPU again and again widens the
// executors' deadline, one freeze does not), and its --concurrency (the executors size batch jobs
// by it). A beat still on its way (the network is down) is not followed by another.
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { BEAT_SCRIPT, beatKeys, FORGET_SCRIPT, HEARTBEAT_MS } from '../executors/workerBeats.js';
import { RECONNECT_MAX_MS, RECONNECT_STEP_MS, type RedisOptions } from '../executors/redisConnection.js';

/** A stopping worker waits at most this long for its entry to be removed. */
const STOP_WAIT_MS = 1000;
/** Gaps between beats remembered for the one reported: a minute's worth. */
const GAP_MEMORY = Math.round(60_000 / HEARTBEAT_MS);

/** What the thread is given. */
interface BeatThreadData {
  ioredisPath: string;
  /** Plain socket options (no functions: they cross to the thread by structured clone). */
  connection: Omit<RedisOptions, 'retryStrategy'>;
  keys: string[];
  name: string;
  /** The metric calls the worker runs at once, told with each beat. */
  concurrency: number;
  beatScript: string;
  forgetScript: string;
  intervalMs: number;
  gapMemory: number;
  stopWaitMs: number;
  reconnectStepMs: number;
  reconnectMaxMs: number;
}

/** The thread: beats every intervalMs; on 'stop', removes its entry and ends. Messages to the parent: { error } once per outage, { stopped }. */
const BEAT_THREAD_SOURCE = `
const { parentPort, workerData: d } = require('node:worker_threads');
const Redis = require(d.ioredisPath);
const client = new Redis({ ...d.connection, maxRetriesPerRequest: null, retryStrategy: (n) => Math.min(d.reconnectStepMs * n, d.reconnectMaxMs), connectionName: 'gepa-beat' });
client.on('error', () => {});
// EVALSHA once Redis knows the scripts: a beat sends their digest, not their text.
client.defineCommand('gepaBeat', { numberOfKeys: d.keys.length, lua: d.beatScript });
client.defineCommand('gepaForget', { numberOfKeys: d.keys.length, lua: d.forgetScript });
const gaps = [];
let last;
let inFlight;
let failing = false;
const thirdLongest = () => {
  let a = 0, b = 0, c = 0;
  for (const g of gaps) {
    if (g > a) { c = b; b = a; a = g; } else if (g > b) { c = b; b = g; } else if (g > c) c = g;
  }
  return c;
};
const beat = () => {
  const now = performance.now();
  if (last !== undefined) {
    gaps.push(now - last);
    if (gaps.length > d.gapMemory) gaps.shift();
  }
  last = now;
  if (inFlight) return;
  inFlight = client.gepaBeat(...d.keys, d.name, String(thirdLongest()), String(d.concurrency)).then(
    () => { failing = false; },
    (error) => {
      if (!failing) parentPort.postMessage({ error: String(error && error.message || error) });
      failing = true;
    },
  ).finally(() => { inFlight = undefined; });
};
beat();
const timer = setInterval(beat, d.intervalMs);
parentPort.on('message', async (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  const bound = new Promise((resolve) => setTimeout(resolve, d.stopWaitMs));
  const forget = (async () => {
    await inFlight;
    await client.gepaForget(...d.keys, d.name).catch(() => {});
  })();
  await Promise.race([forget, bound]);
  client.disconnect();
  parentPort.postMessage({ stopped: true });
});
`;

export interface Heartbeat {
  /** Stops beating and removes the entry: a worker that stopped cleanly is not lost. */
  stop(): Promise<void>;
}

/**
 * Starts beating at once, from a thread of its own. `toKey` makes a key under the queue's prefix
 * (BullMQ's `worker.toKey`); `connection` is where Redis is (the worker's own options);
 * `concurrency` the metric calls the worker runs at once (each beat says it).
 */
export function startHeartbeat(connection: RedisOptions, toKey: (name: string) => string, name: string, concurrency: number, onError: (error: Error) => void): Heartbeat {
  const { retryStrategy: _functionsStayHere, ...plain } = connection;
  const data: BeatThreadData = {
    // The ioredis BullMQ itself runs on.
    ioredisPath: createRequire(createRequire(import.meta.url).resolve('bullmq')).resolve('ioredis'),
    connection: plain,
    keys: beatKeys(toKey),
    name,
    concurrency,
    beatScript: BEAT_SCRIPT,
    forgetScript: FORGET_SCRIPT,
    intervalMs: HEARTBEAT_MS,
    gapMemory: GAP_MEMORY,
    stopWaitMs: STOP_WAIT_MS,
    // As the worker's own connections (bullmqConnection's retryStrategy, a function, cannot cross).
    reconnectStepMs: RECONNECT_STEP_MS,
    reconnectMaxMs: RECONNECT_MAX_MS,
  };
  const thread = new Worker(BEAT_THREAD_SOURCE, { eval: true, workerData: data });
  // The worker's own connections keep the process alive; the heartbeat must not.
  thread.unref();
  let ended = false;
  const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
  void exited.then(() => (ended = true));
  thread.on('message', (message: { error?: string }) => {
    if (message.error !== undefined) onError(new Error(message.error));
  });
  thread.on('error', (error) => onError(error));
  return {
    async stop() {
      if (ended) return;
      const stopped = new Promise<void>((resolve) => thread.on('message', (message: { stopped?: boolean }) => message.stopped && resolve()));
      thread.postMessage('stop');
      let bound: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([stopped, exited, new Promise<void>((resolve) => (bound = setTimeout(resolve, 2 * STOP_WAIT_MS)))]);
      clearTimeout(bound);
      await thread.terminate();
    },
  };
}
