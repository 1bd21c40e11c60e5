// What the bullmq executor does in its queue's Redis beside BullMQ's own calls: the commands of
// ioredis (BullMQ's driver) it uses, where the event stream ends, and failover's reach
// (failover.ts's FailoverRedis): the workers' beats, which worker took a job, and moving a lost
// worker's job back with BullMQ's own Job calls and that worker's lock token.
import { createHash } from 'node:crypto';
import type { Job, Queue, UnrecoverableError } from 'bullmq';
import type { FailoverRedis } from './failover.js';
import type { MetricBatchJobData, MetricCallJobData } from './metricCallJob.js';
import { beatKeys as beatKeysOf, FORGET_SCRIPT, parseBeats, READ_BEATS_SCRIPT } from './workerBeats.js';

/** The commands of ioredis used here (every driver BullMQ wraps has them). */
export interface RawRedis {
  eval(script: string, keys: number, ...args: string[]): Promise<unknown>;
  evalsha(sha: string, keys: number, ...args: string[]): Promise<unknown>;
  get(key: string): Promise<string | null>;
  hdel(key: string, field: string): Promise<number>;
  xrevrange(key: string, end: string, start: string, count: 'COUNT', n: number): Promise<Array<[string, string[]]>>;
  pipeline(): RawPipeline;
  on(event: 'ready', listener: () => void): unknown;
}

interface RawPipeline {
  hget(key: string, field: string): RawPipeline;
  exec(): Promise<Array<[Error | null, unknown]> | null>;
}

/** The queue of metric-call jobs: a call answers an Evaluation, a batch job one answer per example. */
export type MetricCallQueue = Queue<MetricCallJobData | MetricBatchJobData, unknown>;

/**
 * A Lua script run by its digest (EVALSHA), sent whole (EVAL) only when Redis does not know it
 * yet (first use, or a restarted Redis): the scripts run every 100 ms need not travel each time.
 */
export function luaScript(client: RawRedis, script: string, keys: number): (...args: string[]) => Promise<unknown> {
  const sha = createHash('sha1').update(script).digest('hex');
  return async (...args) => {
    try {
      return await client.evalsha(sha, keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return client.eval(script, keys, ...args);
    }
  };
}

/** The queue's own connection, as ioredis. */
export async function rawRedis(queue: MetricCallQueue): Promise<RawRedis> {
  return (await queue.getBackend().client) as unknown as RawRedis;
}

/** The id of the newest entry of the queue's event stream ('0-0' when empty). */
export async function eventStreamEnd(queue: MetricCallQueue, client: RawRedis): Promise<string> {
  const newest = await client.xrevrange(queue.keys.events as string, '+', '-', 'COUNT', 1);
  return newest[0]?.[0] ?? '0-0';
}

/** BullMQ's classes, from the bullmq module imported on first use (an optional peer). */
export interface BullmqClasses {
  Job: typeof Job;
  UnrecoverableError: typeof UnrecoverableError;
}

/** Failover's reach into Redis: beats, owners, and moving a lost worker's jobs with BullMQ's own calls. */
export function failoverRedis(queue: MetricCallQueue, client: RawRedis, { Job, UnrecoverableError }: BullmqClasses): FailoverRedis {
  const beatKeys = beatKeysOf((name) => queue.toKey(name));
  const readBeats = luaScript(client, READ_BEATS_SCRIPT, beatKeys.length);
  /** The job if it is still active, with the token of the lock its worker holds ('0' once the lock expired). */
  const activeJob = async (jobId: string): Promise<{ job: Job; token: string } | undefined> => {
    const [job, token] = await Promise.all([Job.fromId(queue, jobId), client.get(`${queue.toKey(jobId)}:lock`)]);
    if (!job || !(await job.isActive())) return undefined;
    return { job, token: token ?? '0' };
  };
  return {
    readBeats: async () => parseBeats(await readBeats(...beatKeys)),
    owners: async (jobIds) => {
      const pipeline = client.pipeline();
      for (const jobId of jobIds) pipeline.hget(queue.toKey(jobId), 'pb');
      const replies = (await pipeline.exec()) ?? [];
      return jobIds.map((_, i) => {
        const [error, owner] = replies[i] ?? [null, null];
        return error === null && typeof owner === 'string' ? owner : undefined;
      });
    },
    // With the lost worker's token, the move deletes its lock: its late answer finds none and is
    // refused. Then to the head of the plain wait list, which is served before prioritized jobs
    // and wakes idle workers (a job put back among prioritized ones waits for their next poll).
    moveBack: async (jobId) => {
      const active = await activeJob(jobId);
      if (!active) return false;
      await active.job.moveToWait(active.token);
      await active.job.changePriority({ priority: 0, lifo: true });
      return true;
    },
    fail: async (jobId, message) => {
      const active = await activeJob(jobId);
      if (!active) return false;
      await active.job.moveToFailed(new UnrecoverableError(message), active.token, false);
      return true;
    },
    forget: async (workers) => {
      await Promise.all(workers.map((name) => client.eval(FORGET_SCRIPT, beatKeys.length, ...beatKeys, name)));
    },
  };
}
