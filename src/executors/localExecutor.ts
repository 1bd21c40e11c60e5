// Metric calls in this process: the adapter's evaluate, as it is. A batch fans out (no
// evaluateBatch: the evaluation service runs each example's call in a worker slot of its own,
// the fast path that asks nothing more of it), unless the adapter scores a batch in one call
// (its evaluateBatch, e.g. optimizeAnything's batchEvaluator): then the batch is one job holding
// a slot per example.
import type { Adapter } from '../gepa/core/adapter.js';
import type { MetricCallExecutor } from './metricCallExecutor.js';

export function localExecutor<Example>(adapter: Adapter<Example>): MetricCallExecutor<Example> {
  const evaluate: MetricCallExecutor<Example>['evaluate'] = (candidate, example, _id, ctx) => adapter.evaluate(candidate, example, ctx);
  if (!adapter.evaluateBatch) return { evaluate };
  const batch = adapter.evaluateBatch.bind(adapter);
  return {
    evaluate,
    evaluateBatch: (candidate, examples, ctx, slots) => slots.runAll(() => batch(candidate, examples.map((e) => e.example), ctx)),
  };
}
