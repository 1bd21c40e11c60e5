// Reading the front-desk prompt the way the simulated model does: split it into sentences, find
// the sentences that state a fact (keywords, not exact wording; the first statement per fact
// wins, a wrong version included), whether it asks to keep to what the guest asked, and how
// cluttered it is: past ~12 sentences the model overlooks stated facts a little more often.
import { boundedMemo } from '../boundedMemo.js';
import { hashString } from '../hash32.js';
import { matchPosition, splitSentences } from '../promptRules.js';
import { FOCUS_KEYWORDS, HOTEL_FACTS, type FactId } from './hotelFacts.js';

export interface StatedFact {
  sentence: string;
  /** The sentence states a wrong version of the fact. */
  wrong: boolean;
}

export interface FactPrompt {
  text: string;
  hash: number;
  sentences: string[];
  stated: ReadonlyMap<FactId, StatedFact>;
  /** A sentence asks the model to mention only what the guest asked about. */
  focused: boolean;
  /** Chance of overlooking a stated fact on one reply. */
  overlook: number;
}

/** Sentences a prompt holds before the model starts to overlook its facts. */
export const TIDY_SENTENCES = 12;

/** Smooth: 0.01 up to 12 sentences, 0.018 at 14, 0.034 at 16, 0.07 at 20. */
export function overlookRate(sentences: number): number {
  return Math.min(0.5, 0.01 + 0.003 * Math.max(0, sentences - TIDY_SENTENCES) ** 1.5);
}

export function parseFactPrompt(text: string): FactPrompt {
  const sentences = splitSentences(text);
  const stated = new Map<FactId, StatedFact>();
  let focused = false;
  for (const sentence of sentences) {
    const lower = sentence.toLowerCase();
    if (matchPosition(lower, FOCUS_KEYWORDS) !== -1) focused = true;
    for (const fact of HOTEL_FACTS) {
      if (stated.has(fact.id)) continue;
      if (matchPosition(lower, fact.wrongKeywords) !== -1) stated.set(fact.id, { sentence, wrong: true });
      else if (matchPosition(lower, fact.keywords) !== -1) stated.set(fact.id, { sentence, wrong: false });
    }
  }
  return { text, hash: hashString(text), sentences, stated, focused, overlook: overlookRate(sentences.length) };
}

/** parseFactPrompt through a bounded cache. */
export const parseFactPromptCached: (text: string) => FactPrompt = boundedMemo(parseFactPrompt);
