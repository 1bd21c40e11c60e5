// The remote executor: each metric call becomes a BullMQ job served by `gepa-actors worker`
// processes, and its result comes back as the Evaluation. It owns no capacity: the evaluation
// service calls it from inside a worker slot, so at most W jobs are ever outstanding, across
// all workers. A minibatch (or valset slice) goes as jobs sized to the workers (batchJobs 'auto',
// batchJobSize.ts: at most the calls the smallest live worker runs at once, as the heartbeats
// say; a job per call while no worker is known or one runs a call at a time), or as one job
// (true), or a job per call (false); a batch job holds a slot per example (evaluateBatch), its id
// a function of its examples' calls, each example still its own metric call. Job ids are a function of (run, call, occurrence), so a retried, stalled,
// re-submitted or failed-over job is one job and is paid once. A lost worker's calls run again
// elsewhere within a quarter to half a second (failover.ts, from the workers' heartbeats); runs sharing a
// queue get fair shares of its workers (fairShare.ts: a job's priority is a fair-queueing tag). bullmq and ioredis are optional peers: creating the executor
// checks that they are installed, the first evaluation imports them.
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { sha256Hex } from '../identity/contentHash.js';
import type { QueueEvents } from 'bullmq';
import { candidateHash } from '../gepa/core/candidateHash.js';
import { sleep, systemClock } from '../clock.js';
import type { BatchExample, BatchSlots, MetricCallExecutor, MetricCallIdentity } from './metricCallExecutor.js';
import { ConfigError } from '../errors/configError.js';
import type { Candidate, EvalContext, Evaluation } from '../gepa/core/adapter.js';
import type { RerunNotice } from '../gepa/core/runEvent.js';
import { Failover, type FailoverRedis, type FollowedCall } from './failover.js';
import { chunkPlaces, fleetJobSize } from './batchJobSize.js';
import type { FailoverPolicy } from './lostCalls.js';
import { HEARTBEAT_MS } from './workerBeats.js';
import { eventStreamEnd, failoverRedis, luaScript, rawRedis, type MetricCallQueue, type RawRedis } from './queueRedis.js';
import { RedisOutage, RedisUnavailableError } from './redisOutage.js';
import { FAIR_KEY, FAIR_TAGS_SCRIPT, FairTags } from './fairShare.js';
import { checkQueueName, DEFAULT_QUEUE, METRIC_BATCH_JOB, METRIC_CALL_JOB, type BatchExampleAnswer, type MetricBatchJobData, type MetricCallJobData } from './metricCallJob.js';
import { bullmqConnection, waitUntilReachable, type RedisConnectionSpec } from './redisConnection.js';
import { BULLMQ_EXECUTOR, checkInstalled, importIntegration } from '../peers/optionalDependency.js';

/** What createBullmqExecutor uses for an option left out (the doc comments below state the same; test/docDefaults.test.ts compares them). */
export const BULLMQ_EXECUTOR_DEFAULTS = {
  queue: DEFAULT_QUEUE,
  attempts: 3,
  backoffMs: 500,
  keepFinishedSeconds: 86_400,
  keepFinishedJobs: 10_000,
  pollMs: 2000,
  noWorkerWarningMs: 30_000,
  maxRedisDownMs: 300_000,
  workerLostMs: 500,
  maxWorkerLosses: 2,
  batchJobs: 'auto',
} as const;

/** A reading of the workers' beats older than this is refreshed when a batch is sized (in the background: the batch is sized by what is known). */
const FLEET_READING_FRESH_MS = 1000;

/** A call running past max(this floor, OVERDUE_FACTOR x the p99 of observed latencies) on a live worker runs again elsewhere, once. */
const OVERDUE_FLOOR_MS = 2000;
const OVERDUE_FACTOR = 5;


/** Options of createBullmqExecutor. */
export interface BullmqExecutorOptions {
  /** `redis://host:port` or { host, port }. */
  connection: RedisConnectionSpec;
  /** Default 'gepa-actors'; workers must serve the same name. */
  queue?: string;
  /**
   * Names this run's jobs. Default: a fresh id per executor. A stable id (e.g. from the run
   * directory) lets a resumed run re-attach to jobs its previous process submitted.
   */
  runId?: string;
  /** Tries per job before it counts as failed (score 0 with the error). Default 3. */
  attempts?: number;
  /** First retry delay, doubled each retry. Default 500 ms. */
  backoffMs?: number;
  /**
   * Finished jobs are kept (at most this long, at most this many per queue) so that a duplicate
   * submission, e.g. by a resumed run, finds the result instead of paying again. Default 86,400 (a day).
   */
  keepFinishedSeconds?: number;
  /** See keepFinishedSeconds. Default 10,000. */
  keepFinishedJobs?: number;
  /**
   * Every pollMs, outstanding jobs are checked directly: a finish whose event was missed is
   * picked up, and a job Redis lost (a restart without persistence) is submitted again. Default 2000.
   */
  pollMs?: number;
  /** Connection trouble (BullMQ reconnects by itself). Default: one process warning per executor. */
  onError?: (error: Error) => void;
  /**
   * Jobs outstanding this long with none of the queue's jobs being worked on (no worker serves
   * the queue, or all are stuck) give a warning through onWarning, again each time as long. Default 30,000.
   */
  noWorkerWarningMs?: number;
  /**
   * Redis unreachable this long: the executor gives up; outstanding and later metric calls reject
   * with RedisUnavailableError, which stops a run with stopReason 'error' naming Redis (resumable:
   * those calls are not logged, a resume makes them again). Default 300,000.
   */
  maxRedisDownMs?: number;
  /** Something the user should know that is not an error (e.g. no worker on the queue, Redis unreachable). Default: a process warning. */
  onWarning?: (message: string) => void;
  /**
   * A worker whose heartbeat (every 100 ms, from a thread of its own: a busy event loop does not
   * stop it) is older than this, or than 3 x its recent gaps between beats (a process starved of
   * CPU), is lost: its calls run again on other workers. Half of this (or twice its recent gap)
   * is enough while at least two other workers, and half of them, beat on time: a dead worker
   * falls silent alone, a stalled host, Redis or network delays every beat. Default 500.
   */
  workerLostMs?: number;
  /** A call whose worker was lost more than this many times fails (score 0) instead of running again: it may be what kills them. Default 2. */
  maxWorkerLosses?: number;
  /** Every failover: the calls run again (or failed) and why. Also through `onCallsRerun`. */
  onRerun?: (notice: RerunNotice) => void;
  /**
   * How a candidate's minibatch (or valset slice) travels. A batch job answers several examples,
   * each still its own metric call (in the result, log and budget); an example whose adapter
   * throws is tried `attempts` times in the job, then a failed call of that example. One worker
   * runs a batch job, its examples as its `--concurrency` allows (it counts calls), so a job larger
   * than that waits in series while other workers idle (32 workers of concurrency 1: a valset of
   * 30 took 1.5 s as one job, 94 ms as jobs per call, bench/fleetWaves.ts); a job per call costs
   * workers, Redis and the run about twice the CPU per call. Default 'auto': jobs of at most the
   * `--concurrency` of the smallest live worker (each worker's heartbeat says it), the batch split
   * evenly, and a job per call while no worker is known, a worker does not say (an older version),
   * or one runs a call at a time. true: the whole batch as one job; false: a job per call.
   */
  batchJobs?: boolean | 'auto';
}

export { RedisUnavailableError };

/** Metric calls as BullMQ jobs (createBullmqExecutor). */
export interface BullmqExecutor extends MetricCallExecutor<unknown> {
  /** The queue its jobs go to. */
  readonly queueName: string;
  /** The id its jobs are named by. */
  readonly runId: string;
  /** Removes its jobs no worker has taken yet, then closes its Redis connections. */
  close(): Promise<void>;
  /** Calls run again (or failed) after their worker was lost or they hung. Returns the unsubscribe. */
  onCallsRerun(listener: (notice: RerunNotice) => void): () => void;
}

interface Outstanding extends FollowedCall {
  /** The job's name (a call or a batch) and payload, to submit it again. */
  name: string;
  data: MetricCallJobData | MetricBatchJobData;
  /** Set by the poll that first saw it: the next poll checks it (it is then at least pollMs old). */
  seenByPoll: boolean;
  /** The job's answer: an Evaluation, or a batch job's answer per example. */
  resolve(answer: unknown): void;
  reject(error: Error): void;
}

interface Connections {
  queue: MetricCallQueue;
  events: QueueEvents;
  client: RawRedis;
  /** BullMQ's own test of an error that reconnecting will not cure. */
  isNotConnectionError: (error: Error) => boolean;
  failover: FailoverRedis;
  tags: FairTags;
}

/**
 * Trouble reaching Redis, as opposed to Redis refusing a command (which waiting will not fix).
 * BullMQ's own test comes with bullmq, imported on first use; before that, the socket errors alone.
 */
function isConnectionTrouble(error: Error, isNotConnectionError: ((error: Error) => boolean) | undefined): boolean {
  return (isNotConnectionError !== undefined && !isNotConnectionError(error)) || /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|Connection is closed/.test(error.message);
}

function positiveInteger(value: number | undefined, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new ConfigError(`${field} must be an integer >= 1, got ${value}`);
  return value;
}

function nonNegativeInteger(value: number | undefined, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) throw new ConfigError(`${field} must be an integer >= 0, got ${value}`);
  return value;
}

/** Waits for `promise`, or less when the signal aborts first (never rejects). */
async function untilAborted(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return;
  let onAbort: (() => void) | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => signal.addEventListener('abort', (onAbort = () => resolve()), { once: true }))]);
  if (onAbort) signal.removeEventListener('abort', onAbort);
}

function shortHash(text: string): string {
  return sha256Hex(text).slice(0, 12);
}

/** An example as a job carries it: its JSON form (what the worker sees) and a short hash of that JSON (part of its call's id). */
interface TravellingExample {
  json: unknown;
  hash: string;
}


/** A run id that a run directory keeps across processes (resume re-attaches to its jobs). */
export function runIdForDirectory(runDir: string): string {
  return `dir-${sha256Hex(resolve(runDir)).slice(0, 16)}`;
}

/** Throws MissingDependencyError when bullmq or ioredis is not installed (a run must not start without them). */
export function createBullmqExecutor(options: BullmqExecutorOptions): BullmqExecutor {
  checkInstalled(BULLMQ_EXECUTOR);
  const defaults = BULLMQ_EXECUTOR_DEFAULTS;
  const queueName = options.queue ?? defaults.queue;
  const badName = checkQueueName(queueName);
  if (badName) throw new ConfigError(`executor.queue: ${badName}`);
  const connection = bullmqConnection(options.connection, 'executor.connection');
  const runId = options.runId ?? randomUUID();
  const attempts = positiveInteger(options.attempts, defaults.attempts, 'attempts');
  const backoffMs = positiveInteger(options.backoffMs, defaults.backoffMs, 'backoffMs');
  const keepFinishedSeconds = positiveInteger(options.keepFinishedSeconds, defaults.keepFinishedSeconds, 'keepFinishedSeconds');
  const keepFinishedJobs = positiveInteger(options.keepFinishedJobs, defaults.keepFinishedJobs, 'keepFinishedJobs');
  const pollMs = positiveInteger(options.pollMs, defaults.pollMs, 'pollMs');
  const noWorkerWarningMs = positiveInteger(options.noWorkerWarningMs, defaults.noWorkerWarningMs, 'noWorkerWarningMs');
  const maxRedisDownMs = positiveInteger(options.maxRedisDownMs, defaults.maxRedisDownMs, 'maxRedisDownMs');
  const workerLostMs = positiveInteger(options.workerLostMs, defaults.workerLostMs, 'workerLostMs');
  const maxWorkerLosses = nonNegativeInteger(options.maxWorkerLosses, defaults.maxWorkerLosses, 'maxWorkerLosses');
  const batchJobs = options.batchJobs ?? defaults.batchJobs;
  if (batchJobs !== true && batchJobs !== false && batchJobs !== 'auto') throw new ConfigError(`batchJobs must be true, false or 'auto', got ${String(batchJobs)}`);
  const onWarning = options.onWarning ?? ((message: string) => process.emitWarning(message));
  let warned = false;
  const reportError =
    options.onError ??
    ((error: Error) => {
      if (warned) return;
      warned = true;
      process.emitWarning(`bullmq executor (queue "${queueName}"): ${error.message}; waiting for Redis to come back`);
    });
  // BullMQ's test of an error reconnecting will not cure, once bullmq is imported.
  let notConnectionError: ((error: Error) => boolean) | undefined;
  const outage = new RedisOutage({
    where: `${String(connection.host)}:${String(connection.port)}`,
    maxDownMs: maxRedisDownMs,
    clock: systemClock,
    callsOut: () => outstanding.size,
    warn: onWarning,
    recover: () => (closed ? Promise.resolve(0) : recheckAll()),
    giveUp: (error) => {
      closing.abort(error);
      for (const [jobId] of outstanding) settle(jobId, { ok: false, reason: error.message, error });
    },
    report: (error) => onError(error),
  });
  const onError = (error: Error) => {
    reportError(error);
    if (isConnectionTrouble(error, notConnectionError)) outage.trouble(error);
  };
  const redisAnswered = () => outage.answered();
  // Jobs outstanding while none of the queue's jobs is active: nobody serves the queue.
  let idleSince: number | undefined;
  let idleWarnings = 0;

  const outstanding = new Map<string, Outstanding>();
  // How often each (candidate, example, traces) call was submitted: a later identical call
  // (a fresh traced run) is a new job, a resubmission of the same occurrence is not.
  const occurrences = new Map<string, number>();
  let connections: Promise<Connections> | undefined;
  const closing = new AbortController();
  let timers: Array<ReturnType<typeof setInterval>> = [];
  let closed = false;
  const rerunListeners = new Set<(notice: RerunNotice) => void>(options.onRerun ? [options.onRerun] : []);
  const policy: FailoverPolicy = { workerLostMs, peerLostMs: Math.ceil(workerLostMs / 2), overdueFloorMs: OVERDUE_FLOOR_MS, overdueFactor: OVERDUE_FACTOR };
  // batchJobs 'auto': the batch job size the live workers take, from the last reading of their
  // beats (failover reads them every 100 ms while calls are out), and when it was read.
  let fleet: { jobSize: number | undefined; readAtMs: number } | undefined;
  let fleetReading: Promise<unknown> | undefined;
  const failover = new Failover({
    calls: outstanding,
    policy,
    maxWorkerLosses,
    clock: systemClock,
    notify: (notice) => {
      for (const listener of rerunListeners) listener(notice);
    },
  });

  const settle = (jobId: string, outcome: { ok: true; value: unknown } | { ok: false; reason: string; error?: Error }) => {
    const entry = outstanding.get(jobId);
    if (!entry) return;
    outstanding.delete(jobId);
    if (outcome.ok) {
      failover.answered(entry);
      entry.resolve(outcome.value);
    } else entry.reject(outcome.error ?? new Error(outcome.reason));
  };

  const listen = (events: QueueEvents) => {
    events.on('error', onError);
    events.on('active', ({ jobId }) => {
      const entry = outstanding.get(jobId);
      if (entry) failover.started(entry);
    });
    const backInQueue = ({ jobId }: { jobId: string }) => {
      const entry = outstanding.get(jobId);
      if (entry) failover.waiting(entry);
    };
    events.on('waiting', backInQueue);
    events.on('delayed', backInQueue);
    events.on('stalled', backInQueue);
    // 'failed' arrives once, when the last attempt has failed (retries emit no 'failed').
    events.on('completed', ({ jobId, returnvalue }) => settle(jobId, { ok: true, value: returnvalue }));
    events.on('failed', ({ jobId, failedReason }) => settle(jobId, { ok: false, reason: failedReason }));
    // The id was taken: the job exists from an earlier submission and may be finished already.
    events.on('duplicated', ({ jobId }) => {
      if (outstanding.has(jobId)) check(jobId).catch(onError);
    });
  };

  // Opened on first use, so preparing a run that never evaluates touches no network.
  const connect = (): Promise<Connections> => {
    connections ??= (async () => {
      const bullmq = await importIntegration(BULLMQ_EXECUTOR, () => import('bullmq'));
      const { Queue, QueueEvents, isNotConnectionError } = bullmq;
      notConnectionError = isNotConnectionError;
      await waitUntilReachable(connection, closing.signal, onError);
      const queue: MetricCallQueue = new Queue<MetricCallJobData | MetricBatchJobData, unknown>(queueName, {
        connection,
        defaultJobOptions: {
          attempts,
          backoff: { type: 'exponential', delay: backoffMs },
          removeOnComplete: { age: keepFinishedSeconds, count: keepFinishedJobs },
          removeOnFail: { age: keepFinishedSeconds, count: keepFinishedJobs },
        },
      });
      queue.on('error', onError);
      await queue.waitUntilReady();
      const client = await rawRedis(queue);
      // Read events from the stream's current end, not from whenever the reader's first
      // blocking read happens to start: no event of a job submitted after this is missed.
      const events = new QueueEvents(queueName, { connection, lastEventId: await eventStreamEnd(queue, client) });
      listen(events);
      await events.waitUntilReady();
      // ioredis says 'ready' on every reconnection: the earliest word that Redis is back.
      client.on('ready', redisAnswered);
      outage.connected = true;
      const tagKeys = [queue.keys.prioritized as string, queue.toKey(FAIR_KEY)];
      const drawTags = luaScript(client, FAIR_TAGS_SCRIPT, 2);
      const tags = new FairTags(async (calls) => Number(await drawTags(...tagKeys, runId, String(calls))));
      const reach = failoverRedis(queue, client, bullmq);
      // Every reading of the beats (failover's too) tells 'auto' what job size the fleet takes.
      const readBeats = async () => {
        const reading = await reach.readBeats();
        // No worker in the beats at all (a Redis restarted empty before they beat again, or every
        // worker gone): the fleet known last still sizes jobs; a run that never saw one sends a job per call.
        const jobSize = reading.workers.size === 0 && fleet?.jobSize !== undefined ? fleet.jobSize : fleetJobSize(reading.workers, policy);
        fleet = { jobSize, readAtMs: systemClock.now() };
        return reading;
      };
      if (batchJobs === 'auto') await readBeats().catch(onError);
      return { queue, events, client, isNotConnectionError, failover: { ...reach, readBeats }, tags };
    })();
    return connections;
  };

  /**
   * Adds the job, waiting out a Redis outage (BullMQ reconnects by itself): a lost connection
   * must not turn into a failed metric call. Any other error is final. Its priority is a fair
   * tag weighted by its metric calls (fairShare.ts), so runs sharing workers share them fairly.
   */
  const submit = async (jobId: string, name: string, data: MetricCallJobData | MetricBatchJobData, signal?: AbortSignal): Promise<void> => {
    const { queue, isNotConnectionError, tags } = await connect();
    for (let waitMs = 250; ; waitMs = Math.min(2 * waitMs, 4000)) {
      try {
        await queue.add(name, data, { jobId, priority: await tags.next('exampleIds' in data ? data.exampleIds.length : 1) });
        redisAnswered();
        return;
      } catch (error) {
        if (!(error instanceof Error) || isNotConnectionError(error) || closed || signal?.aborted) throw error;
        onError(error);
        if (outage.givenUp) throw outage.givenUp;
        await sleep(systemClock, waitMs, signal);
      }
    }
  };

  /**
   * Settles a finished job from its stored state; re-submits one Redis no longer knows (after a
   * restart without persistence), clearing first whatever stray fields of it a command resent on
   * reconnection may have written. Says whether it re-submitted.
   */
  const check = async (jobId: string): Promise<boolean> => {
    const { queue } = await connect();
    const state = await queue.getJobState(jobId);
    if (state === 'completed' || state === 'failed') {
      const job = await queue.getJob(jobId);
      if (job) settle(jobId, state === 'completed' ? { ok: true, value: job.returnvalue } : { ok: false, reason: job.failedReason });
      return false;
    }
    const entry = outstanding.get(jobId);
    if (state !== 'unknown' || !entry) return false;
    failover.waiting(entry);
    await queue.remove(jobId);
    await submit(jobId, entry.name, entry.data);
    return true;
  };

  /** After an outage: every outstanding job is checked at once; resolves with how many were submitted again. */
  const recheckAll = async (): Promise<number> => (await Promise.all([...outstanding.keys()].map(check))).filter(Boolean).length;

  // Only jobs outstanding for a whole interval are checked: a normal finish costs no extra query.
  const pollOutstanding = () => {
    for (const [jobId, entry] of outstanding) {
      if (entry.seenByPoll) check(jobId).catch(onError);
      else entry.seenByPoll = true;
    }
    watchForWorkers().catch(onError);
  };

  /** The extra look watchWorkers asked for at a silent worker's deadline, until it runs. */
  let lookSoon: ReturnType<typeof setTimeout> | undefined;
  /**
   * Failover: a look at the workers' heartbeats, while Redis answers; and another one as a silent
   * worker passes its deadline, when that comes before the next regular look.
   */
  const watchWorkers = () => {
    outage.giveUpIfTooLong();
    if (!connections || outstanding.size === 0 || outage.down) return;
    connections
      .then((c) => failover.tick(c.failover))
      .then((dueInMs) => {
        redisAnswered();
        if (dueInMs === undefined || dueInMs >= HEARTBEAT_MS || lookSoon !== undefined || timers.length === 0) return;
        lookSoon = setTimeout(() => {
          lookSoon = undefined;
          watchWorkers();
        }, dueInMs + 1);
        lookSoon.unref();
      }, onError);
  };

  const startTimers = () => {
    if (timers.length > 0) return;
    timers = [setInterval(pollOutstanding, pollMs), setInterval(watchWorkers, HEARTBEAT_MS)];
    for (const timer of timers) timer.unref();
  };
  const stopTimers = () => {
    for (const timer of timers) clearInterval(timer);
    timers = [];
    clearTimeout(lookSoon);
    lookSoon = undefined;
  };

  /** Warns when jobs wait and the queue has had no active job for noWorkerWarningMs. */
  const watchForWorkers = async () => {
    if (outstanding.size === 0 || !connections) return;
    const { queue } = await connections;
    const { active = 0 } = await queue.getJobCounts('active');
    redisAnswered();
    const now = systemClock.now();
    if (active > 0 || outstanding.size === 0) {
      idleSince = undefined;
      idleWarnings = 0;
      return;
    }
    idleSince ??= now;
    if (now - idleSince < (idleWarnings + 1) * noWorkerWarningMs) return;
    idleWarnings++;
    onWarning(
      `no worker on queue "${queueName}": ${outstanding.size} job${outstanding.size === 1 ? '' : 's'} waiting for ${Math.round((now - idleSince) / 1000)} s and none taken; ` +
        `start one with \`gepa-actors worker --queue ${queueName} ...\``,
    );
  };

  // Per candidate and example object, for this executor's run (which changes neither): each of
  // their calls names them by hash, and a dataset's examples travel again and again.
  const candidateHashes = new WeakMap<Candidate, string>();
  const hashOf = (candidate: Candidate): string => {
    let hash = candidateHashes.get(candidate);
    if (hash === undefined) candidateHashes.set(candidate, (hash = candidateHash(candidate)));
    return hash;
  };
  const travelling = new WeakMap<object, TravellingExample>();
  const asTravelling = (example: unknown): TravellingExample => {
    const cached = typeof example === 'object' && example !== null ? travelling.get(example) : undefined;
    if (cached) return cached;
    const text = JSON.stringify(example) ?? 'null';
    const made = { json: JSON.parse(text) as unknown, hash: shortHash(text) };
    if (typeof example === 'object' && example !== null) travelling.set(example, made);
    return made;
  };

  const callKey = (exampleId: number, captureTraces: boolean, hash: string, exampleHash: string, given: MetricCallIdentity | undefined): string => {
    const key = `${hash}.${exampleId}.${exampleHash}.${captureTraces ? 1 : 0}`;
    // The evaluation service numbers occurrences across replays from a run log too; count here
    // only when called without it.
    const occurrence = given?.occurrence ?? occurrences.get(key) ?? 0;
    occurrences.set(key, occurrence + 1);
    return `${runId}.${key}.${occurrence}`;
  };

  /**
   * Submits a job (a call, or a batch) and answers what it returned; rejects with its failure
   * after its last attempt. An abort withdraws it if no worker has taken it yet.
   */
  const runJob = async (jobId: string, name: string, data: MetricCallJobData | MetricBatchJobData, logKeys: readonly string[], signal: AbortSignal): Promise<unknown> => {
    const ready = connect();
    const result = new Promise<unknown>((resolve, reject) =>
      outstanding.set(jobId, { name, data, logKeys, seenByPoll: false, losses: 0, rerunForOverdue: false, resolve, reject }),
    );
    // An abort may reject it before it is awaited below; that is not an unhandled rejection.
    result.catch(() => {});
    const onAbort = () => {
      const entry = outstanding.get(jobId);
      if (!entry) return;
      outstanding.delete(jobId);
      entry.reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      // A job no worker has taken yet is withdrawn; an active one is locked and runs out.
      ready.then(({ queue }) => queue.remove(jobId)).catch(() => {});
    };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      // Listening before submitting, so the finish event cannot slip past; while Redis cannot
      // be reached at all, this waits (an abort still ends the wait).
      await Promise.race([ready, result]);
      if (outage.givenUp) throw outage.givenUp;
      if (signal.aborted) return await result;
      startTimers();
      // While Redis is down an add waits in ioredis's queue; giving up on Redis settles the call without it.
      const submitted = submit(jobId, name, data, signal);
      submitted.catch(() => {});
      await Promise.race([submitted, result]);
      return await result;
    } catch (error) {
      outstanding.delete(jobId);
      throw error;
    } finally {
      signal.removeEventListener('abort', onAbort);
      if (outstanding.size === 0) stopTimers();
    }
  };

  /** Refuses a call once the executor has given up on Redis, is closed, or the run is aborted. */
  const checkOpen = (signal: AbortSignal) => {
    if (outage.givenUp) throw outage.givenUp;
    if (closed) throw new Error('the bullmq executor is closed');
    if (signal.aborted) throw signal.reason;
  };

  /**
   * Examples of a batch as one job: its id is made of its examples' call ids (a resumed run, or a
   * job submitted again, finds the same job), and its answer is one result per example; a failed
   * example comes back as its error, which the evaluation service records as that call failing.
   */
  const batchJob = (candidate: Candidate, examples: readonly BatchExample<unknown>[], ctx: EvalContext): (() => Promise<unknown[]>) => {
    const hash = hashOf(candidate);
    const travels = examples.map(({ example }) => asTravelling(example));
    const calls = examples.map(({ exampleId, call }, i) => callKey(exampleId, ctx.captureTraces, hash, travels[i]!.hash, call));
    const jobId = `${runId}.batch.${hash}.${shortHash(calls.join(' '))}`;
    const data: MetricBatchJobData = { candidate, examples: travels.map((t) => t.json), exampleIds: examples.map((e) => e.exampleId), captureTraces: ctx.captureTraces };
    const logKeys = examples.map(({ exampleId }) => `${hash}:${exampleId}:${ctx.captureTraces ? 1 : 0}`);
    return async () => {
      checkOpen(ctx.signal);
      const answers = await runJob(jobId, METRIC_BATCH_JOB, data, logKeys, ctx.signal);
      // A list of the wrong length is left as it is: the evaluation service fails each example of it.
      if (!Array.isArray(answers) || answers.length !== examples.length) return answers as unknown[];
      return (answers as Array<BatchExampleAnswer | null>).map((answer) => (answer?.ok === false ? new Error(answer.error) : answer?.ok === true ? answer.evaluation : answer));
    };
  };

  /** The batch job size the live workers take now ('auto'); a reading grown old is refreshed for the next batch. */
  const jobSizeNow = (): number | undefined => {
    if (connections && !outage.down && !fleetReading && (!fleet || systemClock.now() - fleet.readAtMs > FLEET_READING_FRESH_MS)) {
      fleetReading = connections
        .then((c) => c.failover.readBeats())
        .then(redisAnswered, onError)
        .finally(() => (fleetReading = undefined));
    }
    return fleet?.jobSize;
  };

  const evaluateBatch = async (candidate: Candidate, examples: readonly BatchExample<unknown>[], ctx: EvalContext, slots: BatchSlots): Promise<Evaluation[]> => {
    if (batchJobs === true) return slots.runAll(batchJob(candidate, examples, ctx));
    // The first batch waits for the connection, which reads the beats: it is sized by them too.
    if (fleet === undefined && !closed) await untilAborted(connect().then(() => undefined, () => undefined), ctx.signal);
    const size = jobSizeNow() ?? 1;
    const chunks = size <= 1 ? examples.map((_, i) => [i]) : chunkPlaces(examples.length, size);
    const answers = await Promise.all(
      chunks.map((places) => {
        if (places.length > 1) return slots.runAll(batchJob(candidate, places.map((i) => examples[i]!), ctx), places);
        const { example, exampleId, call } = examples[places[0]!]!;
        return slots.runOne(places[0]!, () => api.evaluate(candidate, example, exampleId, ctx, call)).then((evaluation) => [evaluation]);
      }),
    );
    const inOrder: Evaluation[] = new Array(examples.length);
    chunks.forEach((places, c) => places.forEach((place, i) => (inOrder[place] = answers[c]![i]!)));
    return inOrder;
  };

  const api: BullmqExecutor = {
    queueName,
    runId,

    async evaluate(candidate: Candidate, example: unknown, exampleId: number, ctx: EvalContext, call?: MetricCallIdentity): Promise<Evaluation> {
      checkOpen(ctx.signal);
      // The example as JSON would carry it: the worker sees exactly what travelled.
      const travel = asTravelling(example);
      const data: MetricCallJobData = { candidate, example: travel.json, exampleId, captureTraces: ctx.captureTraces };
      const hash = hashOf(candidate);
      const jobId = callKey(exampleId, ctx.captureTraces, hash, travel.hash, call);
      return (await runJob(jobId, METRIC_CALL_JOB, data, [`${hash}:${exampleId}:${ctx.captureTraces ? 1 : 0}`], ctx.signal)) as Evaluation;
    },

    ...(batchJobs === false ? {} : { evaluateBatch }),

    onCallsRerun(listener) {
      rerunListeners.add(listener);
      return () => rerunListeners.delete(listener);
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      stopTimers();
      const unanswered = [...outstanding.keys()];
      for (const jobId of unanswered) settle(jobId, { ok: false, reason: 'the bullmq executor was closed' });
      closing.abort(new Error('the bullmq executor was closed'));
      const shutDown = connections?.then(
        async ({ queue, events, client }) => {
          // A closed run leaves no work behind: jobs no worker has taken are withdrawn (active ones are locked and run out).
          await Promise.allSettled([...unanswered.map((jobId) => queue.remove(jobId)), client.hdel(queue.toKey(FAIR_KEY), runId)]);
          return Promise.allSettled([events.close(), queue.close()]);
        },
        () => undefined,
      );
      // Normally at once; connections still being opened are shut when they open, without
      // holding close() up for longer than this.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([shutDown, new Promise((resolve) => (timer = setTimeout(resolve, 2000)).unref())]);
      clearTimeout(timer);
    },
  };
  return api;
}
