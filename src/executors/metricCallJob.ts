// What travels through the queue for one metric call: the job's payload (candidate, the example
// as JSON, its id, captureTraces), its name, the default queue, and the JSON-safe form of the
// Evaluation a worker sends back. Shared by the executor (producer) and the worker (consumer).
import type { Candidate } from '../gepa/core/adapter.js';

export const METRIC_CALL_JOB = 'metric-call';
export const DEFAULT_QUEUE = 'gepa-actors';

export interface MetricCallJobData {
  candidate: Candidate;
  example: unknown;
  exampleId: number;
  captureTraces: boolean;
}

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
