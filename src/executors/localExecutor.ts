// Metric calls in this process: the adapter's evaluate, as it is; a batch fans out, each example's
// call in a worker slot of its own.
import type { Adapter } from '../gepa/core/adapter.js';
import { evaluateEachInSlot, type MetricCallExecutor } from './metricCallExecutor.js';

export function localExecutor<Example>(adapter: Adapter<Example>): MetricCallExecutor<Example> {
  const executor: MetricCallExecutor<Example> = {
    evaluate: (candidate, example, _id, ctx) => adapter.evaluate(candidate, example, ctx),
    evaluateBatch: (candidate, examples, ctx, slots) => evaluateEachInSlot(executor, candidate, examples, ctx, slots),
  };
  return executor;
}
