// `gepa-actors worker --adapter PATH[#EXPORT] --redis URL [--queue NAME] [--concurrency N]`:
// parses the arguments (exit 2 with a clear message when they are wrong), loads the adapter,
// serves metric-call jobs until SIGINT/SIGTERM (or the given stop signal), then finishes the
// jobs in hand and exits 0. The CLI mounts this; src/worker/workerMain.ts runs it directly.
import { parseArgs } from 'node:util';
import { parseRedisConnection } from '../executors/redisConnection.js';
import { checkQueueName, DEFAULT_QUEUE } from '../executors/metricCallJob.js';
import { BULLMQ_EXECUTOR_DEFAULTS } from '../executors/bullmqExecutor.js';
import { HEARTBEAT_MS } from '../executors/workerBeats.js';
import { ConfigError } from '../errors/configError.js';
import { AdapterLoadError, parseAdapterSpec } from './loadAdapter.js';
import { runWorker } from './runWorker.js';
import { errorMessage } from '../errors/errorMessage.js';

/** The `gepa-actors worker` command's usage text. */
export const WORKER_USAGE = `Usage: gepa-actors worker --adapter PATH[#EXPORT] --redis URL [options]

Serve metric-call jobs of runs that use the bullmq executor. The adapter is the export EXPORT
(default "adapter") of the ES module at PATH; examples arrive inside the jobs as JSON.

Failover: the worker beats every ${HEARTBEAT_MS} ms through Redis, from a thread of its own (an adapter
that keeps the event loop busy does not stop it). When it dies, freezes or loses the network,
the runs notice within about half a second (the executor's workerLostMs, default ${BULLMQ_EXECUTOR_DEFAULTS.workerLostMs}),
a quarter of a second while the other workers beat on time, and run its jobs on other workers; an answer it sends later is refused and it logs "answer
dropped". Each call is paid once and the result is unchanged. Several runs may share a queue
and its workers: each gets a fair share of the jobs served. Start as many workers as you like,
on any host that reaches Redis; stop one with SIGINT or SIGTERM (it finishes its jobs first).

Options:
  --adapter PATH[#EXPORT]   adapter module and export name (required)
  --redis URL               redis://[:password@]host:port of the queue, rediss:// for TLS (required)
  --queue NAME              queue name, as in the run's executor config (default ${DEFAULT_QUEUE})
  --concurrency N           metric calls this process runs at once (default 1); a batch job
                            (a minibatch as one job) holds one per example; its heartbeat says
                            it, and runs send batch jobs of at most the smallest one
  --lock-duration MS        BullMQ's job lock, only a backstop now that runs fail over by
                            heartbeat: a job a dead worker held is taken back after about this
                            plus the stalled interval (default 30000)
  --stalled-interval MS     how often to look for such jobs (default 30000)
  --help                    show this text`;

export interface WorkerCommandIo {
  stdout?: (line: string) => void;
  stderr?: (line: string) => void;
  /** Abort = stop serving. Default: SIGINT or SIGTERM. */
  stopSignal?: AbortSignal;
}

class UsageError extends Error {}

function integerFlag(value: string | undefined, flag: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min) {
    throw new UsageError(`${flag} must be an integer >= ${min}, got "${value}"`);
  }
  return n;
}

function parseWorkerArgs(argv: readonly string[]) {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        adapter: { type: 'string' },
        redis: { type: 'string' },
        queue: { type: 'string' },
        concurrency: { type: 'string' },
        'lock-duration': { type: 'string' },
        'stalled-interval': { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
  const { values } = parsed;
  if (values.help) return { help: true as const };
  if (!values.adapter) throw new UsageError('--adapter PATH[#EXPORT] is required');
  if (!values.redis) throw new UsageError('--redis URL is required (e.g. redis://127.0.0.1:6379)');
  const queue = values.queue ?? DEFAULT_QUEUE;
  const badName = checkQueueName(queue);
  if (badName) throw new UsageError(`--queue: ${badName}`);
  try {
    parseRedisConnection(values.redis, '--redis');
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
  let spec;
  try {
    spec = parseAdapterSpec(values.adapter);
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
  return {
    help: false as const,
    ...spec,
    redis: values.redis,
    queue,
    concurrency: integerFlag(values.concurrency, '--concurrency', 1) ?? 1,
    lockDurationMs: integerFlag(values['lock-duration'], '--lock-duration', 100),
    stalledIntervalMs: integerFlag(values['stalled-interval'], '--stalled-interval', 100),
  };
}

function stopOnProcessSignals(): AbortSignal {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return controller.signal;
}

/** Runs the worker command; resolves with the exit code (0 stopped, 1 runtime failure, 2 bad arguments). */
export async function workerCommand(argv: readonly string[], io: WorkerCommandIo = {}): Promise<number> {
  const out = io.stdout ?? ((line: string) => process.stdout.write(`${line}\n`));
  const err = io.stderr ?? ((line: string) => process.stderr.write(`${line}\n`));
  let args;
  try {
    args = parseWorkerArgs(argv);
  } catch (error) {
    err(`gepa-actors worker: ${(error as Error).message}\n\n${WORKER_USAGE}`);
    return 2;
  }
  if (args.help) {
    out(WORKER_USAGE);
    return 0;
  }
  const stopSignal = io.stopSignal ?? stopOnProcessSignals();
  let worker;
  try {
    worker = await runWorker({ ...args, log: (line) => err(line) });
  } catch (error) {
    const text = errorMessage(error);
    err(`gepa-actors worker: ${text}`);
    return error instanceof AdapterLoadError || error instanceof ConfigError ? 2 : 1;
  }
  out(`gepa-actors worker ready: queue "${worker.queueName}", concurrency ${worker.concurrency}, adapter ${args.adapterPath}#${args.exportName}, pid ${process.pid}`);
  if (!stopSignal.aborted) await new Promise((resolve) => stopSignal.addEventListener('abort', resolve, { once: true }));
  out('gepa-actors worker: stopping after the jobs in hand');
  await worker.close();
  return 0;
}
