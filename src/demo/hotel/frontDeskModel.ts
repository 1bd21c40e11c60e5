// The simulated front-desk model seen by the optimizer as an ordinary Adapter: one metric call
// answers one guest message under the candidate's system prompt and grades the reply. The
// reflection records show the message, the reply and the grader's feedback, never the hidden
// list of facts the message needs.
import type { Adapter, Candidate, EvalContext, Evaluation, ReflectiveDataset } from '../../gepa/core/adapter.js';
import { combineHashes, hashString } from '../hash32.js';
import { plainReflectiveDataset } from '../plainReflectiveDataset.js';
import { checkLatencyOptions, latencyApplies, simulateLatency, type LatencyModel } from '../simulatedLatency.js';
import { parseFactPromptCached } from './factPrompt.js';
import { answerGuest } from './frontDeskReply.js';
import type { HotelExample } from './hotelDataset.js';

export const HOTEL_COMPONENT = 'system_prompt';

export interface FrontDeskModelOptions extends LatencyModel {
  seed: number;
}

function promptText(candidate: Candidate): string {
  const text = candidate[HOTEL_COMPONENT];
  if (typeof text !== 'string') {
    throw new TypeError(`the hotel task needs component '${HOTEL_COMPONENT}'; this candidate has: ${Object.keys(candidate).join(', ') || 'none'}`);
  }
  return text;
}

export function createFrontDeskModel(options: FrontDeskModelOptions): Adapter<HotelExample> {
  const { seed } = options;
  checkLatencyOptions('metricCallMs', options.meanMs, options.jitter);
  return {
    async evaluate(candidate: Candidate, example: HotelExample, ctx: EvalContext): Promise<Evaluation> {
      const prompt = parseFactPromptCached(promptText(candidate));
      if (latencyApplies(options, ctx.signal)) {
        await simulateLatency(options, combineHashes(prompt.hash, hashString(example.id, seed), seed), ctx.signal);
      }
      return answerGuest(prompt, example, seed, ctx.captureTraces);
    },

    makeReflectiveDataset(_candidate, results, components): ReflectiveDataset {
      return plainReflectiveDataset(results, components);
    },
  };
}
