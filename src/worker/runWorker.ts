// A worker process's job loop: a BullMQ Worker that serves metric-call jobs with the user's
// adapter, `concurrency` metric calls at a time (a batch job's examples each count; callIntake.ts
// decides how many jobs to hold), and returns each Evaluation in JSON-safe form. It beats every
// 100 ms from a thread of its own (workerHeartbeat.ts): when it dies, freezes or loses the
// network, the runs' executors notice within a quarter to half a second and move its jobs to other
// workers; its late answers are then refused (their lock is gone). A batch job (a minibatch as
// one job, the executor's batchJobs) runs its examples as the concurrency allows and answers one
// result per example; an example whose adapter throws is tried again in the job, as often as a
// job would be, and answered as failed. BullMQ's own stalled-job check, after about
// lockDurationMs + stalledIntervalMs, stays as the backstop. bullmq is an optional peer,
// imported when a worker starts.
// Room worker/: imported by the command and the entries.
import { hostname } from 'node:os';
import { validEvaluation } from '../evaluation/failureTally.js';
import { checkQueueName, DEFAULT_QUEUE, METRIC_BATCH_JOB, METRIC_CALL_JOB, toJsonSafe, type BatchExampleAnswer, type MetricBatchJobData, type MetricCallJobData } from '../executors/metricCallJob.js';
import { bullmqConnection, type RedisConnectionSpec } from '../executors/redisConnection.js';
import { ConfigError } from '../errors/configError.js';
import type { Adapter, Evaluation } from '../gepa/core/adapter.js';
import { sleep, systemClock } from '../clock.js';
import { loadAdapter } from './loadAdapter.js';
import { errorMessage } from '../errors/errorMessage.js';
import { BULLMQ_WORKER, importIntegration } from '../peers/optionalDependency.js';
import { startHeartbeat, type Heartbeat } from './workerHeartbeat.js';
import { CallIntake } from './callIntake.js';

/** Options of runWorker (the `gepa-actors worker` command's flags). */
export interface RunWorkerOptions {
  /** Path of the ES module that exports the adapter. */
  adapterPath?: string;
  /** Default 'adapter'. */
  exportName?: string;
  /** An adapter object instead of a module path (in-process workers, tests, benchmarks). */
  adapter?: Adapter<unknown>;
  /** The Redis the run's executor uses: a `redis://` / `rediss://` URL or { host, port }. */
  redis: RedisConnectionSpec;
  /** Default 'gepa-actors'. */
  queue?: string;
  /** Metric calls this process runs at once (a batch job holds one per example). Default 1. */
  concurrency?: number;
  /** How long a job's lock lasts without renewal (renewed every half of it). Default 30000. */
  lockDurationMs?: number;
  /** How often this worker looks for stalled jobs. Default 30000. */
  stalledIntervalMs?: number;
  /** Times a job may be taken back from a dead worker before it fails. Default 2. */
  maxStalledCount?: number;
  /** Give up (and throw) when Redis is not reachable within this long. Default 10000. */
  connectTimeoutMs?: number;
  /** Job failures and connection trouble, one line each. */
  log?: (line: string) => void;
}

/** A started worker. */
export interface RunningWorker {
  /** The queue it serves. */
  readonly queueName: string;
  /** Metric calls it runs at once. */
  readonly concurrency: number;
  /** Its name in jobs' processedBy and in the heartbeats: `host:pid:n`. */
  readonly name: string;
  /** Finishes the jobs in hand, then disconnects. */
  close(): Promise<void>;
}

// Several workers in one process (tests, benchmarks) need names of their own.
let started = 0;

/** A completion Redis refused because the run had moved the job to another worker (its lock was taken back). */
const isTakenBack = (message: string) => /^(Missing lock|Lock mismatch|Missing key) for job /.test(message) || /is not in the active state/.test(message);


function checkCount(value: number | undefined, fallback: number, field: string, min: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) throw new ConfigError(`${field} must be an integer >= ${min}, got ${value}`);
  return value;
}

/**
 * Starts a worker that serves the metric-call jobs of a bullmq executor with the adapter (loaded
 * from `adapterPath#exportName`, or given). Throws MissingDependencyError without bullmq and ioredis.
 */
export async function runWorker(options: RunWorkerOptions): Promise<RunningWorker> {
  const queueName = options.queue ?? DEFAULT_QUEUE;
  const badName = checkQueueName(queueName);
  if (badName) throw new ConfigError(`queue: ${badName}`);
  const concurrency = checkCount(options.concurrency, 1, 'concurrency', 1);
  const lockDuration = checkCount(options.lockDurationMs, 30_000, 'lockDurationMs', 100);
  const stalledInterval = checkCount(options.stalledIntervalMs, 30_000, 'stalledIntervalMs', 100);
  const maxStalledCount = checkCount(options.maxStalledCount, 2, 'maxStalledCount', 0);
  const connectTimeoutMs = checkCount(options.connectTimeoutMs, 10_000, 'connectTimeoutMs', 1);
  const connection = bullmqConnection(options.redis, 'redis');
  const log = options.log ?? (() => {});
  const { Worker } = await importIntegration(BULLMQ_WORKER, () => import('bullmq'));
  let adapter = options.adapter;
  if (!adapter) {
    if (!options.adapterPath) throw new ConfigError('runWorker: give adapterPath (or adapter)');
    adapter = await loadAdapter(options.adapterPath, options.exportName ?? 'adapter');
  }
  const serve = adapter;
  const name = `${hostname()}:${process.pid}:${started++}`;
  // `concurrency` counts metric calls: a batch job's examples wait their turn here, and the
  // worker takes new jobs only while it holds fewer calls than that (CallIntake).
  const intake = new CallIntake(concurrency);

  /**
   * One example of a batch job, tried as a per-example job would be: `attempts` times, the waits
   * between them doubling from the job's backoff. The last error's message is its failure.
   */
  const evaluateInBatch = async (jobId: string | undefined, data: MetricBatchJobData, index: number, attempts: number, backoffMs: number, signal: AbortSignal): Promise<BatchExampleAnswer> => {
    for (let attempt = 1; ; attempt++) {
      try {
        const evaluation = await intake.run(() => serve.evaluate(data.candidate, data.examples[index], { captureTraces: data.captureTraces, signal }));
        // As a per-example job's: checked before JSON would turn a NaN score into null.
        return { ok: true, evaluation: toJsonSafe(validEvaluation(evaluation)) };
      } catch (error) {
        const message = errorMessage(error);
        log(`job ${jobId ?? '?'} example ${data.exampleIds[index] ?? index} failed (attempt ${attempt}): ${message}`);
        if (attempt >= attempts || signal.aborted) return { ok: false, error: message };
        await sleep(systemClock, backoffMs * 2 ** (attempt - 1), signal).catch(() => {});
      }
    }
  };

  const worker = new Worker<MetricCallJobData | MetricBatchJobData, Evaluation | BatchExampleAnswer[]>(
    queueName,
    async (job, _token, given) => {
      const signal = given ?? new AbortController().signal;
      const size = job.name === METRIC_BATCH_JOB ? Math.max(1, (job.data as MetricBatchJobData).examples?.length ?? 1) : 1;
      worker.concurrency = intake.took(size);
      try {
        if (job.name === METRIC_BATCH_JOB) {
          const data = job.data as MetricBatchJobData;
          const backoff = job.opts.backoff;
          const backoffMs = typeof backoff === 'number' ? backoff : (backoff?.delay ?? 0);
          return await Promise.all(data.examples.map((_, i) => evaluateInBatch(job.id, data, i, job.opts.attempts ?? 1, backoffMs, signal)));
        }
        if (job.name !== METRIC_CALL_JOB) throw new Error(`unknown job "${job.name}" on queue "${queueName}"`);
        const { candidate, example, captureTraces } = job.data as MetricCallJobData;
        let evaluation: Evaluation;
        try {
          evaluation = await intake.run(() => serve.evaluate(candidate, example, { captureTraces, signal }));
        } catch (error) {
          // BullMQ keeps error.message as the failure reason the optimizer records.
          throw error instanceof Error ? error : new Error(String(error));
        }
        // Checked here: as JSON, a NaN score would reach the optimizer as null.
        return toJsonSafe(validEvaluation(evaluation));
      } finally {
        // Before BullMQ finishes the job and looks for the next one: it takes one only below this.
        worker.concurrency = intake.done(size);
      }
    },
    {
      connection,
      concurrency,
      lockDuration,
      stalledInterval,
      maxStalledCount,
      autorun: true,
      // Lands in each job's processedBy: which host and process ran it, and the heartbeat it gives.
      name,
      // After a lost connection, try again within a quarter second (BullMQ waits 15 s), so a
      // restarted Redis is served at once.
      runRetryDelay: 250,
    },
  );
  worker.on('failed', (job, error) => log(`job ${job?.id ?? '?'} failed (attempt ${job?.attemptsMade ?? '?'}): ${error.message}`));
  // BullMQ tries to finish, then to retry, a job it no longer holds: one line per job, not two.
  const dropped = new Set<string>();
  worker.on('error', (error) => {
    const text = errorMessage(error);
    if (!isTakenBack(text)) return log(`worker error: ${text}`);
    const jobId = / for job (\S+?)\.? /.exec(text)?.[1] ?? text;
    if (dropped.has(jobId)) return;
    if (dropped.size >= 1000) dropped.clear();
    dropped.add(jobId);
    log(`answer dropped, the run had moved the job to another worker (this one looked lost): ${text}`);
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), connectTimeoutMs);
  });
  let heartbeat: Heartbeat;
  try {
    const outcome = await Promise.race([worker.waitUntilReady(), timedOut]);
    if (outcome === 'timeout') throw new Error(`cannot reach Redis at ${connection.host}:${connection.port} within ${connectTimeoutMs} ms`);
    heartbeat = startHeartbeat(connection, (key) => worker.toKey(key), name, concurrency, (error) => log(`heartbeat: ${errorMessage(error)}`));
  } catch (error) {
    // A worker left behind would keep reconnecting forever.
    await worker.close(true).catch(() => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return {
    queueName,
    concurrency,
    name,
    close: async () => {
      // Beats until its jobs are done: a worker finishing its jobs is not lost.
      await worker.close();
      await heartbeat.stop();
    },
  };
}
