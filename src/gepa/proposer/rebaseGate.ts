// A rebased child's second minibatch gate, as its proposer runs it: the examples the gate judges
// on, fixed once when the rebase is decided (staleChild.ts's rule, from the first gate's scores),
// the evaluations of the rebased child and of the candidate it was rebased onto as they come, and
// the outcome once both are in (the acceptance rule against the new base, childCandidate.ts).
import type { MinibatchOutcome } from '../core/proposal.js';
import { scoresOf } from '../core/scores.js';
import type { AcceptanceRule, RebaseGate } from '../../settingValues.js';
import type { Candidate, Evaluation } from '../core/adapter.js';
import { judgeChildOutcome } from './childCandidate.js';

export interface RebaseGateRun {
  onto: Candidate;
  ontoHash: string;
  /** Example-table ids the gate judges on (a subset of the minibatch, in its order). */
  exampleIds: number[];
  ontoEvaluations?: Evaluation[];
  childEvaluations?: Evaluation[];
  /** Set once both evaluations are in. */
  outcome?: MinibatchOutcome;
}

/** The gate of a rebase onto `onto`, from the first gate's evaluations of the parent and of the child it replaces. */
export function startRebaseGate(
  rebase: { onto: Candidate; ontoHash: string; gate: RebaseGate },
  minibatch: readonly number[],
  parentEvaluations: readonly Evaluation[],
  childEvaluations: readonly Evaluation[],
): RebaseGateRun {
  return { onto: rebase.onto, ontoHash: rebase.ontoHash, exampleIds: rebaseGateExamples(rebase.gate, minibatch, scoresOf(parentEvaluations), scoresOf(childEvaluations)) };
}

/** The gate with one side's evaluations in, and judged once both are. */
export function rebaseGateAfter(
  gate: RebaseGateRun,
  side: 'child' | 'onto',
  evaluations: Evaluation[],
  proposal: { task: number; acceptance: AcceptanceRule; childHash: string },
): RebaseGateRun {
  const next = { ...gate, [side === 'child' ? 'childEvaluations' : 'ontoEvaluations']: evaluations };
  if (!next.childEvaluations || !next.ontoEvaluations) return next;
  const { task, acceptance } = proposal;
  const outcome = judgeChildOutcome({ task, acceptance }, { childHash: proposal.childHash, evaluations: next.childEvaluations }, { against: 'rebase-onto', evaluations: next.ontoEvaluations });
  return { ...next, outcome };
}

/**
 * The examples a rebased child is judged on against its new base. 'where-it-helped': the
 * minibatch examples on which the child beat its own parent, the ones its edit showed an effect
 * on. Elsewhere the edit changed nothing there is to judge, and a pass is followed by a valset
 * evaluation that judges the whole. A third to a half of the gate's calls are saved, and the
 * verdict is sharper: on the examples that did not move, the new base's own strengths and
 * weaknesses would decide it (measured in bench/README.md). The whole minibatch when no example
 * improved (an improvement-or-equal acceptance) or with 'whole-minibatch'.
 */
export function rebaseGateExamples(gate: RebaseGate, minibatch: readonly number[], parentScores: readonly number[], childScores: readonly number[]): number[] {
  const helped = gate === 'where-it-helped' ? minibatch.filter((_, i) => (childScores[i] ?? 0) > (parentScores[i] ?? 0)) : [];
  return helped.length > 0 ? helped : [...minibatch];
}
