// The simulated task model of the demo, seen by the optimizer as an ordinary Adapter: it reads
// the candidate's system prompt, answers the ticket (taskModelAnswer.ts), grades by exact match
// and explains misses. Results depend only on (prompt text, example, task seed).
import type { Adapter, Candidate } from '../gepa/core/adapter.js';
import type { DemoExample } from './demoDataset.js';
import { parsePromptCached } from './promptRules.js';
import type { LatencyModel } from './simulatedLatency.js';
import { simulatedTaskAdapter } from './simulatedTaskAdapter.js';
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
  return simulatedTaskAdapter(options, { readPrompt: (candidate) => parsePromptCached(promptTextOf(candidate)), answer: answerTicket });
}
