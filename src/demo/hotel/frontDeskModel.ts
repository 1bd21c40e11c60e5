// The simulated front-desk model seen by the optimizer as an ordinary Adapter: one metric call
// answers one guest message under the candidate's system prompt and grades the reply. The
// reflection records show the message, the reply and the grader's feedback, never the hidden
// list of facts the message needs.
import type { Adapter, Candidate } from '../../gepa/core/adapter.js';
import type { LatencyModel } from '../simulatedLatency.js';
import { simulatedTaskAdapter } from '../simulatedTaskAdapter.js';
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
  return simulatedTaskAdapter(options, { readPrompt: (candidate) => parseFactPromptCached(promptText(candidate)), answer: answerGuest });
}
