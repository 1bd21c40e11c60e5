// The records the reflection LM reads: the adapter's own makeReflectiveDataset when it has one,
// else one record per evaluated example with the keys Inputs, Generated Outputs, Feedback; and
// the parent's minibatch results they are made from.
import type { Adapter, Candidate, EvaluatedExample, Evaluation, ReflectiveDataset } from '../core/adapter.js';

/** Each minibatch example (example-table ids) with its evaluation, in minibatch order: what the dataset is built from. */
export function minibatchResults(minibatch: readonly number[], examples: readonly unknown[], evaluations: readonly Evaluation[]): Array<EvaluatedExample<unknown>> {
  return evaluations.flatMap((evaluation, i) => {
    const id = minibatch[i];
    return id === undefined ? [] : [{ example: examples[id], evaluation }];
  });
}

export function defaultReflectiveDataset<Example>(
  results: ReadonlyArray<EvaluatedExample<Example>>,
  components: readonly string[],
): ReflectiveDataset {
  const records = results.map(({ example, evaluation }) => ({
    Inputs: example,
    'Generated Outputs': evaluation.output ?? '(no output)',
    Feedback: evaluation.feedback ?? `Score: ${evaluation.score}`,
  }));
  return Object.fromEntries(components.map((c) => [c, records]));
}

export async function buildReflectiveDataset<Example>(
  adapter: Adapter<Example>,
  candidate: Candidate,
  results: ReadonlyArray<EvaluatedExample<Example>>,
  components: readonly string[],
): Promise<ReflectiveDataset> {
  if (!adapter.makeReflectiveDataset) return defaultReflectiveDataset(results, components);
  return adapter.makeReflectiveDataset(candidate, results, components);
}
