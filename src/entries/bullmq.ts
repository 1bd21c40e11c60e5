/**
 * `gepa-actors/bullmq`: metric calls as BullMQ jobs on worker processes over Redis (bullmq and
 * ioredis, optional peers): the executor, the worker and its command. docs/workers.md.
 *
 * @module gepa-actors/bullmq
 */
export { createBullmqExecutor, runIdForDirectory, RedisUnavailableError, type BullmqExecutor, type BullmqExecutorOptions } from '../executors/bullmqExecutor.js';
export type { RedisConnectionSpec } from '../executors/redisConnection.js';
export type { RerunNotice } from '../gepa/core/runEvent.js';
export { runWorker, type RunningWorker, type RunWorkerOptions } from '../worker/runWorker.js';
export { workerCommand, WORKER_USAGE } from '../worker/workerCommand.js';
