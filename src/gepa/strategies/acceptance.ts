// The minibatch gate: a child is accepted when its score sum on its own task's minibatch beats
// its own parent's there (strictly, or by improvement-or-equal).
import type { AcceptanceVerdict } from '../core/proposal.js';
import { sum } from '../core/scores.js';
import type { AcceptanceRule } from '../../settingValues.js';

export function judgeChild(rule: AcceptanceRule, parentScores: readonly number[], childScores: readonly number[]): AcceptanceVerdict {
  const parentSum = sum(parentScores);
  const childSum = sum(childScores);
  const margin = childSum - parentSum;
  const accepted = rule === 'strict-improvement' ? margin > 0 : margin >= 0;
  return { accepted, parentSum, childSum, margin };
}

export function isPerfect(scores: readonly number[], perfectScore: number): boolean {
  return scores.length > 0 && scores.every((s) => s >= perfectScore);
}
