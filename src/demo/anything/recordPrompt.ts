// How the record task's simulated model reads its prompt: sentences, the rule each field's first
// stating sentence gives (keywords, not exact wording; a wrong version included), and how
// cluttered it is: past ~10 sentences the model overlooks stated rules a little more often.
import { boundedMemo } from '../boundedMemo.js';
import { hashString } from '../hash32.js';
import { matchPosition, splitSentences } from '../promptRules.js';
import { RECORD_RULES } from './recordRules.js';

/** Sentences a prompt holds before the model starts to overlook its rules. */
const TIDY_SENTENCES = 10;

export function overlookRate(sentences: number): number {
  return Math.min(0.5, 0.01 + 0.004 * Math.max(0, sentences - TIDY_SENTENCES) ** 1.5);
}

export interface RulePrompt {
  hash: number;
  sentences: string[];
  /** Per field, the sentence that states its rule first and whether it states the wrong version. */
  stated: ReadonlyMap<string, { sentence: string; wrong: boolean }>;
  overlook: number;
}

export function parseRulePrompt(text: string): RulePrompt {
  const sentences = splitSentences(text);
  const stated = new Map<string, { sentence: string; wrong: boolean }>();
  for (const sentence of sentences) {
    const lower = sentence.toLowerCase();
    for (const rule of RECORD_RULES) {
      if (stated.has(rule.field)) continue;
      if (matchPosition(lower, rule.wrongKeywords) !== -1) stated.set(rule.field, { sentence, wrong: true });
      else if (matchPosition(lower, rule.keywords) !== -1) stated.set(rule.field, { sentence, wrong: false });
    }
  }
  return { hash: hashString(text), sentences, stated, overlook: overlookRate(sentences.length) };
}

export const parseRulePromptCached: (text: string) => RulePrompt = boundedMemo(parseRulePrompt);
