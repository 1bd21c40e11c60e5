// Reading one stage's prompt the way the simulated solver does: split it into sentences, find the
// sentences that state a rule of that stage (keywords, not exact wording; the first statement
// per rule wins), note broad wordings that clash with another stated rule, and how cluttered the
// prompt is: past ~8 sentences the model overlooks stated rules more and more often.
import { matchPosition, splitSentences } from '../promptRules.js';
import { boundedMemo } from '../boundedMemo.js';
import { hashString } from '../hash32.js';
import { STAGE_RULES, type RuleId, type Stage } from './stageRules.js';

export interface StatedStageRule {
  sentence: string;
  /** The sentence states the opposite of the rule. */
  wrong: boolean;
}

export interface StagePrompt {
  text: string;
  hash: number;
  sentences: string[];
  stated: ReadonlyMap<RuleId, StatedStageRule>;
  /** Rules the model is confused about: a broad wording clashes with another stated rule. */
  clashing: ReadonlySet<RuleId>;
  /** Chance of overlooking a stated rule on one example. */
  overlook: number;
}

/** Sentences a prompt holds before the model starts to overlook its rules. */
export const TIDY_SENTENCES = 8;
const BASE_OVERLOOK = 0.015;

/** Smooth: 0.043 at 10 sentences, 0.095 at 12, 0.24 at 16. */
export function overlookRate(sentences: number): number {
  return Math.min(0.6, BASE_OVERLOOK + 0.01 * Math.max(0, sentences - TIDY_SENTENCES) ** 1.5);
}

export function parseStagePrompt(text: string, stage: Stage): StagePrompt {
  const sentences = splitSentences(text);
  const stated = new Map<RuleId, StatedStageRule>();
  for (const sentence of sentences) {
    const lower = sentence.toLowerCase();
    for (const rule of STAGE_RULES) {
      if (rule.stage !== stage || stated.has(rule.id)) continue;
      if (rule.wrongKeywords && matchPosition(lower, rule.wrongKeywords) !== -1) stated.set(rule.id, { sentence, wrong: true });
      else if (matchPosition(lower, rule.keywords) !== -1) stated.set(rule.id, { sentence, wrong: false });
    }
  }
  const clashing = new Set<RuleId>();
  for (const rule of STAGE_RULES) {
    const own = stated.get(rule.id);
    if (!rule.conflict || !own || own.wrong) continue;
    const other = stated.get(rule.conflict.with);
    const lower = own.sentence.toLowerCase();
    if (other && !other.wrong && !rule.conflict.unless.some((w) => lower.includes(w))) {
      clashing.add(rule.id);
      clashing.add(rule.conflict.with);
    }
  }
  return { text, hash: hashString(text), sentences, stated, clashing, overlook: overlookRate(sentences.length) };
}

const SEPARATOR = '\u0000';
const cached = boundedMemo((key) => {
  const at = key.indexOf(SEPARATOR);
  return parseStagePrompt(key.slice(at + 1), key.slice(0, at) as Stage);
});

/** parseStagePrompt through a bounded cache: the optimizer re-sends the same texts many times. */
export function parseStagePromptCached(text: string, stage: Stage): StagePrompt {
  return cached(`${stage}${SEPARATOR}${text}`);
}
