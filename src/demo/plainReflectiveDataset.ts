// The reflective dataset the simulated tasks hand the reflection LM: per example only what a real
// adapter would show (the input, the output, the grader's feedback), never the hidden fields an
// example carries for grading, and the same records for every component asked about.
import type { EvaluatedExample, ReflectiveDataset } from '../gepa/core/adapter.js';

export function plainReflectiveDataset<E extends { input: string }>(results: ReadonlyArray<EvaluatedExample<E>>, components: readonly string[]): ReflectiveDataset {
  const records = results.map(({ example, evaluation }) => ({
    Inputs: example.input,
    'Generated Outputs': evaluation.output ?? '(no output)',
    Feedback: evaluation.feedback ?? `Score: ${evaluation.score}`,
  }));
  return Object.fromEntries(components.map((c) => [c, records]));
}
