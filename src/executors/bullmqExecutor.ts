// The remote executor: each metric call becomes a BullMQ job served by `gepa-actors worker`
// processes, and its result comes back as the Evaluation. It owns no capacity: the evaluation
// service calls it from inside a worker slot, so at most W jobs are ever outstanding, across
// all workers. Job ids are a function of (run, call, occurrence), so a retried, stalled or
// re-submitted job is one job and is paid once. bullmq and ioredis are optional peers: creating
// the executor checks that they are installed, the first evaluation imports them.
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { sha256Hex } from '../identity/contentHash.js';
import type { Queue, QueueEvents } from 'bullmq';
import { candidateHash } from '../gepa/core/candidateHash.js';
import { sleep, systemClock } from '../clock.js';
import type { MetricCallExecutor, MetricCallIdentity } from './metricCallExecutor.js';
import { ConfigError } from '../errors/configError.js';
import type { Candidate, EvalContext, Evaluation } from '../gepa/core/adapter.js';
import { checkQueueName, DEFAULT_QUEUE, METRIC_CALL_JOB, type MetricCallJobData } from './metricCallJob.js';
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
} as const;

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
   * Redis unreachable this long: the executor gives up; outstanding and later metric calls fail
   * with a connection error (so a run stops with stopReason 'error', resumable). Default 300,000.
   */
  maxRedisDownMs?: number;
  /** Something the user should know that is not an error (e.g. no worker on the queue). Default: a process warning. */
  onWarning?: (message: string) => void;
}

/** Redis could not be reached for maxRedisDownMs: the run cannot go on until it is back. */
export class RedisUnavailableError extends Error {
  /** 'RedisUnavailableError'. */
  override readonly name = 'RedisUnavailableError';
  /** Counted as a connection failure (src/evaluation/failureTally.ts). */
  readonly kind = 'connection';
}

/** Metric calls as BullMQ jobs (createBullmqExecutor). */
export interface BullmqExecutor extends MetricCallExecutor<unknown> {
  /** The queue its jobs go to. */
  readonly queueName: string;
  /** The id its jobs are named by. */
  readonly runId: string;
  /** Closes its Redis connections. */
  close(): Promise<void>;
}

interface Outstanding {
  data: MetricCallJobData;
  /** Set by the poll that first saw it: the next poll checks it (it is then at least pollMs old). */
  seenByPoll: boolean;
  resolve(evaluation: Evaluation): void;
  reject(error: Error): void;
}

interface Connections {
  queue: Queue<MetricCallJobData, Evaluation>;
  events: QueueEvents;
  /** BullMQ's own test of an error that reconnecting will not cure. */
  isNotConnectionError: (error: Error) => boolean;
}

/** The id of the newest entry of the queue's event stream ('0-0' when empty). */
async function eventStreamEnd(queue: Queue<MetricCallJobData, Evaluation>): Promise<string> {
  // XREVRANGE is not in BullMQ's client interface, but every driver it wraps has it.
  const client = (await queue.getBackend().client) as unknown as {
    xrevrange(key: string, end: string, start: string, count: 'COUNT', n: number): Promise<Array<[string, string[]]>>;
  };
  const newest = await client.xrevrange(queue.keys.events as string, '+', '-', 'COUNT', 1);
  return newest[0]?.[0] ?? '0-0';
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

function shortHash(text: string): string {
  return sha256Hex(text).slice(0, 12);
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
  const onWarning = options.onWarning ?? ((message: string) => process.emitWarning(message));
  let warned = false;
  const reportError =
    options.onError ??
    ((error: Error) => {
      if (warned) return;
      warned = true;
      process.emitWarning(`bullmq executor (queue "${queueName}"): ${error.message}; waiting for Redis to come back`);
    });
  // Since when Redis has failed us without a success in between; past maxRedisDownMs we give up.
  let downSince: number | undefined;
  let givenUp: RedisUnavailableError | undefined;
  // BullMQ's test of an error reconnecting will not cure, once bullmq is imported.
  let notConnectionError: ((error: Error) => boolean) | undefined;
  const where = `${String(connection.host)}:${String(connection.port)}`;
  const onError = (error: Error) => {
    reportError(error);
    if (!isConnectionTrouble(error, notConnectionError) || givenUp) return;
    const now = systemClock.now();
    downSince ??= now;
    if (now - downSince < maxRedisDownMs) return;
    givenUp = new RedisUnavailableError(
      `Redis at ${where} unreachable for ${Math.round((now - downSince) / 1000)} s (${error.message}); the run stops and can be resumed once Redis is back`,
    );
    closing.abort(givenUp);
    for (const [jobId] of outstanding) settle(jobId, { ok: false, reason: givenUp.message, error: givenUp });
  };
  const redisAnswered = () => {
    downSince = undefined;
  };
  // Jobs outstanding while none of the queue's jobs is active: nobody serves the queue.
  let idleSince: number | undefined;
  let idleWarnings = 0;

  const outstanding = new Map<string, Outstanding>();
  // How often each (candidate, example, traces) call was submitted: a later identical call
  // (a fresh traced run) is a new job, a resubmission of the same occurrence is not.
  const occurrences = new Map<string, number>();
  let connections: Promise<Connections> | undefined;
  const closing = new AbortController();
  let pollTimer: ReturnType<typeof setInterval> | undefined;
  let closed = false;

  const settle = (jobId: string, outcome: { ok: true; value: Evaluation } | { ok: false; reason: string; error?: Error }) => {
    const entry = outstanding.get(jobId);
    if (!entry) return;
    outstanding.delete(jobId);
    if (outcome.ok) entry.resolve(outcome.value);
    else entry.reject(outcome.error ?? new Error(outcome.reason));
  };

  const listen = (events: QueueEvents) => {
    events.on('error', onError);
    // 'failed' arrives once, when the last attempt has failed (retries emit no 'failed').
    events.on('completed', ({ jobId, returnvalue }) => settle(jobId, { ok: true, value: returnvalue as unknown as Evaluation }));
    events.on('failed', ({ jobId, failedReason }) => settle(jobId, { ok: false, reason: failedReason }));
    // The id was taken: the job exists from an earlier submission and may be finished already.
    events.on('duplicated', ({ jobId }) => {
      if (outstanding.has(jobId)) check(jobId).catch(onError);
    });
  };

  // Opened on first use, so preparing a run that never evaluates touches no network.
  const connect = (): Promise<Connections> => {
    connections ??= (async () => {
      const { Queue, QueueEvents, isNotConnectionError } = await importIntegration(BULLMQ_EXECUTOR, () => import('bullmq'));
      notConnectionError = isNotConnectionError;
      await waitUntilReachable(connection, closing.signal, onError);
      const queue = new Queue<MetricCallJobData, Evaluation>(queueName, {
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
      redisAnswered();
      // Read events from the stream's current end, not from whenever the reader's first
      // blocking read happens to start: no event of a job submitted after this is missed.
      const events = new QueueEvents(queueName, { connection, lastEventId: await eventStreamEnd(queue) });
      listen(events);
      await events.waitUntilReady();
      return { queue, events, isNotConnectionError };
    })();
    return connections;
  };

  /**
   * Adds the job, waiting out a Redis outage (BullMQ reconnects by itself): a lost connection
   * must not turn into a failed metric call. Any other error is final.
   */
  const submit = async (jobId: string, data: MetricCallJobData, signal?: AbortSignal): Promise<void> => {
    const { queue, isNotConnectionError } = await connect();
    for (let waitMs = 250; ; waitMs = Math.min(2 * waitMs, 4000)) {
      try {
        await queue.add(METRIC_CALL_JOB, data, { jobId });
        redisAnswered();
        return;
      } catch (error) {
        if (!(error instanceof Error) || isNotConnectionError(error) || closed || signal?.aborted) throw error;
        onError(error);
        if (givenUp) throw givenUp;
        await sleep(systemClock, waitMs, signal);
      }
    }
  };

  /** Settles a finished job from its stored state; re-submits one Redis no longer knows. */
  const check = async (jobId: string): Promise<void> => {
    const { queue } = await connect();
    const state = await queue.getJobState(jobId);
    if (state === 'completed' || state === 'failed') {
      const job = await queue.getJob(jobId);
      if (!job) return;
      settle(jobId, state === 'completed' ? { ok: true, value: job.returnvalue } : { ok: false, reason: job.failedReason });
    } else if (state === 'unknown') {
      const entry = outstanding.get(jobId);
      if (entry) await submit(jobId, entry.data);
    }
  };

  // Only jobs outstanding for a whole interval are checked: a normal finish costs no extra query.
  const pollOutstanding = () => {
    for (const [jobId, entry] of outstanding) {
      if (entry.seenByPoll) check(jobId).catch(onError);
      else entry.seenByPoll = true;
    }
    watchForWorkers().catch(onError);
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

  const jobIdOf = (data: MetricCallJobData, exampleJson: string, given: MetricCallIdentity | undefined): string => {
    const key = `${candidateHash(data.candidate)}.${data.exampleId}.${shortHash(exampleJson)}.${data.captureTraces ? 1 : 0}`;
    // The evaluation service numbers occurrences across replays from a run log too; count here
    // only when called without it.
    const occurrence = given?.occurrence ?? occurrences.get(key) ?? 0;
    occurrences.set(key, occurrence + 1);
    return `${runId}.${key}.${occurrence}`;
  };

  return {
    queueName,
    runId,

    async evaluate(candidate: Candidate, example: unknown, exampleId: number, ctx: EvalContext, call?: MetricCallIdentity): Promise<Evaluation> {
      if (givenUp) throw givenUp;
      if (closed) throw new Error('the bullmq executor is closed');
      const { signal } = ctx;
      if (signal.aborted) throw signal.reason;
      const exampleJson = JSON.stringify(example) ?? 'null';
      // The example as JSON would carry it: the worker sees exactly what travelled.
      const data: MetricCallJobData = { candidate, example: JSON.parse(exampleJson), exampleId, captureTraces: ctx.captureTraces };
      const jobId = jobIdOf(data, exampleJson, call);
      const ready = connect();
      const result = new Promise<Evaluation>((resolve, reject) => outstanding.set(jobId, { data, seenByPoll: false, resolve, reject }));
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
        if (givenUp) throw givenUp;
        if (signal.aborted) return await result;
        await submit(jobId, data, signal);
        if (pollTimer === undefined) {
          pollTimer = setInterval(pollOutstanding, pollMs);
          pollTimer.unref();
        }
        return await result;
      } catch (error) {
        outstanding.delete(jobId);
        throw error;
      } finally {
        signal.removeEventListener('abort', onAbort);
        if (outstanding.size === 0 && pollTimer !== undefined) {
          clearInterval(pollTimer);
          pollTimer = undefined;
        }
      }
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      if (pollTimer !== undefined) clearInterval(pollTimer);
      for (const [jobId] of outstanding) settle(jobId, { ok: false, reason: 'the bullmq executor was closed' });
      closing.abort(new Error('the bullmq executor was closed'));
      const shutDown = connections?.then(
        ({ queue, events }) => Promise.allSettled([events.close(), queue.close()]),
        () => undefined,
      );
      // Normally at once; connections still being opened are shut when they open, without
      // holding close() up for longer than this.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([shutDown, new Promise((resolve) => (timer = setTimeout(resolve, 2000)).unref())]);
      clearTimeout(timer);
    },
  };
}
