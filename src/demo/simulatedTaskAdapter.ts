// The adapter every single-prompt simulated task shows the optimizer (the demo's support desk,
// the hotel front desk, the bookkeeper): read the candidate's prompt, wait the latency its hash
// and the example draw, answer, and give the reflection model the plain records (the example
// text only, as a real adapter would, not the hidden fields). One place, so the tasks differ
// only in how they read a prompt and answer.
import type { Adapter, Candidate, EvalContext, Evaluation, ReflectiveDataset } from '../gepa/core/adapter.js';
import { combineHashes, hashString } from './hash32.js';
import { plainReflectiveDataset } from './plainReflectiveDataset.js';
import { checkLatencyOptions, latencyApplies, simulateLatency, type LatencyModel } from './simulatedLatency.js';

/** How one task reads a candidate and answers an example; results depend only on (prompt, example, seed). */
export interface SimulatedTask<Example extends { id: string; input: string }, Prompt extends { hash: number }> {
  readPrompt(candidate: Candidate): Prompt;
  answer(prompt: Prompt, example: Example, seed: number, withTrace: boolean): Evaluation;
}

export function simulatedTaskAdapter<Example extends { id: string; input: string }, Prompt extends { hash: number }>(
  options: LatencyModel & { seed: number },
  task: SimulatedTask<Example, Prompt>,
): Adapter<Example> {
  const { seed } = options;
  checkLatencyOptions('metricCallMs', options.meanMs, options.jitter);
  return {
    async evaluate(candidate: Candidate, example: Example, ctx: EvalContext): Promise<Evaluation> {
      const prompt = task.readPrompt(candidate);
      if (latencyApplies(options, ctx.signal)) {
        await simulateLatency(options, combineHashes(prompt.hash, hashString(example.id, seed), seed), ctx.signal);
      }
      return task.answer(prompt, example, seed, ctx.captureTraces);
    },

    makeReflectiveDataset(_candidate, results, components): ReflectiveDataset {
      return plainReflectiveDataset(results, components);
    },
  };
}
