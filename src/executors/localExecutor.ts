// Metric calls in this process: the adapter's evaluate, as it is.
import type { Adapter } from '../gepa/core/adapter.js';
import type { MetricCallExecutor } from './metricCallExecutor.js';

export function localExecutor<Example>(adapter: Adapter<Example>): MetricCallExecutor<Example> {
  return { evaluate: (candidate, example, _id, ctx) => adapter.evaluate(candidate, example, ctx) };
}
