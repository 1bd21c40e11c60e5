// Metric calls in this process: the adapter's evaluate, as it is. A batch fans out (no
// evaluateBatch: the evaluation service runs each example's call in a worker slot of its own,
// the fast path that asks nothing more of it).
import type { Adapter } from '../gepa/core/adapter.js';
import type { MetricCallExecutor } from './metricCallExecutor.js';

export function localExecutor<Example>(adapter: Adapter<Example>): MetricCallExecutor<Example> {
  return { evaluate: (candidate, example, _id, ctx) => adapter.evaluate(candidate, example, ctx) };
}
