// The simulated task model of the demo, seen by the optimizer as an ordinary Adapter: it reads
// the candidate's system prompt, answers the ticket (taskModelAnswer.ts), grades by exact match
// and explains misses. Results depend only on (prompt text, example, task seed).
import type { Adapter, Candidate, EvalContext, Evaluation, ReflectiveDataset } from '../gepa/core/adapter.js';
import type { DemoExample } from './demoDataset.js';
import { plainReflectiveDataset } from './plainReflectiveDataset.js';
import { combineHashes, hashString } from './hash32.js';
import { parsePromptCached } from './promptRules.js';
import { checkLatencyOptions, latencyApplies, simulateLatency, type LatencyModel } from './simulatedLatency.js';
import { answerTicket } from './taskModelAnswer.js';

export const PROMPT_COMPONENT = 'system_prompt';

export interface DemoTaskModelOptions extends LatencyModel {
  seed: number;
}

/** The prompt the model reads: `system_prompt`, else every component in key order. */
function promptTextOf(candidate: Candidate): string {
  const text = candidate[PROMPT_COMPONENT];
  if (text !== undefined) return text;
  return Object.keys(candidate)
    .sort()
    .map((k) => candidate[k])
    .join('\n');
}

export function createDemoTaskModel(options: DemoTaskModelOptions): Adapter<DemoExample> {
  const { seed } = options;
  checkLatencyOptions('metricCallMs', options.meanMs, options.jitter);
  return {
    async evaluate(candidate: Candidate, example: DemoExample, ctx: EvalContext): Promise<Evaluation> {
      const prompt = parsePromptCached(promptTextOf(candidate));
      if (latencyApplies(options, ctx.signal)) {
        await simulateLatency(options, combineHashes(prompt.hash, hashString(example.id, seed), seed), ctx.signal);
      }
      return answerTicket(prompt, example, seed, ctx.captureTraces);
    },

    // The reflection LM sees the ticket text only, as it would with a real adapter; the default
    // records would show the hidden fields (expected answer, skills) too.
    makeReflectiveDataset(_candidate, results, components): ReflectiveDataset {
      return plainReflectiveDataset(results, components);
    },
  };
}
