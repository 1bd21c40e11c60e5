// Where a metric call actually runs. The evaluation service decides when (slots, cache); an
// executor decides where: in this process (local) or on remote workers (BullMQ).
import type { Adapter, Candidate, EvalContext, Evaluation } from './types.js';

export interface MetricCallExecutor<Example> {
  evaluate(candidate: Candidate, example: Example, exampleId: number, ctx: EvalContext): Promise<Evaluation>;
  close?(): Promise<void>;
}

export function localExecutor<Example>(adapter: Adapter<Example>): MetricCallExecutor<Example> {
  return { evaluate: (candidate, example, _id, ctx) => adapter.evaluate(candidate, example, ctx) };
}
