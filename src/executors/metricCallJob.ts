// What travels through the queue for one metric call: the job's payload (candidate, the example
// as JSON, its id, captureTraces), its name, the default queue, and the JSON-safe form of the
// Evaluation a worker sends back; and for a batch job (a minibatch or valset slice as one job),
// its examples and the answer per example. Shared by the executor (producer) and the worker (consumer).
import type { Candidate, Evaluation } from '../gepa/core/adapter.js';

export const METRIC_CALL_JOB = 'metric-call';
/** A batch job: one candidate on several examples, each its own metric call (the executor's batchJobs). */
export const METRIC_BATCH_JOB = 'metric-batch';
export const DEFAULT_QUEUE = 'gepa-actors';

export interface MetricCallJobData {
  candidate: Candidate;
  example: unknown;
  exampleId: number;
  captureTraces: boolean;
}

export interface MetricBatchJobData {
  candidate: Candidate;
  /** The examples as JSON, in the batch's order. */
  examples: unknown[];
  exampleIds: number[];
  captureTraces: boolean;
}

/**
 * A batch job's answer for one example: its evaluation, or the message of the error its last
 * attempt threw (a failed call of that example, as a per-example job's failedReason says).
 */
export type BatchExampleAnswer = { ok: true; evaluation: Evaluation } | { ok: false; error: string };

/**
 * The Evaluation as JSON would carry it: BigInts become strings, functions and symbols vanish,
 * cycles become "[Circular]". A worker returns this so an odd trace never fails the job.
 */
export function toJsonSafe<T>(value: T): T {
  const ancestors: object[] = [];
  const text = JSON.stringify(value, function (this: unknown, _key, v: unknown) {
    if (typeof v === 'bigint') return v.toString();
    if (typeof v !== 'object' || v === null) return v;
    // `this` is the object holding v: drop ancestors that are no longer on the path to it.
    while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
    if (ancestors.includes(v)) return '[Circular]';
    ancestors.push(v);
    return v;
  });
  return (text === undefined ? undefined : JSON.parse(text)) as T;
}

/** Queue names become Redis key parts; BullMQ refuses ':' in them. */
export function checkQueueName(queue: string): string | undefined {
  if (typeof queue !== 'string' || queue === '') return 'the queue name must be a non-empty string';
  if (queue.includes(':')) return `the queue name must not contain ':' (got "${queue}")`;
  return undefined;
}
