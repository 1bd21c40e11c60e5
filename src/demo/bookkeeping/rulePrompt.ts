// Reading the bookkeeping prompt the way the simulated model does: split it into sentences, find
// the sentences that state a house rule (keywords, not exact wording; the first statement of a
// rule wins, a wrong version included), and how often the model overlooks a stated rule: a little
// more often with every sentence, a gentle linear decay like the one IFScale ("How Many
// Instructions Can LLMs Follow at Once?", Jaroslawicz et al. 2025) measured for non-reasoning
// frontier models as the number of instructions in a prompt grows.
import { boundedMemo } from '../boundedMemo.js';
import { hashString } from '../hash32.js';
import { matchPosition, splitSentences } from '../promptRules.js';
import { HOUSE_RULES, type RuleId } from './houseRules.js';

export interface StatedRule {
  sentence: string;
  /** The sentence states a wrong version of the rule. */
  wrong: boolean;
}

export interface RulePrompt {
  text: string;
  hash: number;
  sentences: string[];
  stated: ReadonlyMap<RuleId, StatedRule>;
  /** Chance of overlooking a stated rule on one entry. */
  overlook: number;
}

/** Sentences a prompt holds before the model starts to overlook its rules more often. */
export const FOCUSED_SENTENCES = 10;

/** 0.01 up to 10 sentences, then 0.002 more per sentence: 0.03 at 20, 0.05 at 30 (capped at 0.5). */
export function overlookRate(sentences: number): number {
  return Math.min(0.5, 0.01 + 0.002 * Math.max(0, sentences - FOCUSED_SENTENCES));
}

export function parseRulePrompt(text: string): RulePrompt {
  const sentences = splitSentences(text);
  const stated = new Map<RuleId, StatedRule>();
  for (const sentence of sentences) {
    const lower = sentence.toLowerCase();
    for (const rule of HOUSE_RULES) {
      if (stated.has(rule.id)) continue;
      if (matchPosition(lower, rule.wrongKeywords) !== -1) stated.set(rule.id, { sentence, wrong: true });
      else if (matchPosition(lower, rule.keywords) !== -1) stated.set(rule.id, { sentence, wrong: false });
    }
  }
  return { text, hash: hashString(text), sentences, stated, overlook: overlookRate(sentences.length) };
}

/** parseRulePrompt through a bounded cache. */
export const parseRulePromptCached: (text: string) => RulePrompt = boundedMemo(parseRulePrompt);
