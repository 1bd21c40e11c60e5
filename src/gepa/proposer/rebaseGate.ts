// A rebased child's second minibatch gate, as its proposer runs it: the examples the gate judges
// on, fixed once when the rebase is decided (staleChild.ts's rule, from the first gate's scores),
// and the evaluations of the rebased child and of the candidate it was rebased onto as they come.
// The gate is judged (childCandidate.ts) once both are in.
import type { Candidate, Evaluation, RebaseGate } from '../../types.js';
import { rebaseGateExamples } from '../core/staleChild.js';

export interface RebaseGateRun {
  onto: Candidate;
  ontoHash: string;
  /** Example-table ids the gate judges on (a subset of the minibatch, in its order). */
  exampleIds: number[];
  ontoEvaluations?: Evaluation[];
  childEvaluations?: Evaluation[];
}

/** The gate of a rebase onto `onto`, from the first gate's evaluations of the parent and of the child it replaces. */
export function startRebaseGate(
  rebase: { onto: Candidate; ontoHash: string; gate: RebaseGate },
  minibatch: readonly number[],
  parentEvaluations: readonly Evaluation[],
  childEvaluations: readonly Evaluation[],
): RebaseGateRun {
  const scores = (evaluations: readonly Evaluation[]) => evaluations.map((e) => e.score);
  return { onto: rebase.onto, ontoHash: rebase.ontoHash, exampleIds: rebaseGateExamples(rebase.gate, minibatch, scores(parentEvaluations), scores(childEvaluations)) };
}

/** The gate with one side's evaluations in. */
export const withGateEvaluations = (gate: RebaseGateRun, side: 'child' | 'onto', evaluations: Evaluation[]): RebaseGateRun => ({
  ...gate,
  [side === 'child' ? 'childEvaluations' : 'ontoEvaluations']: evaluations,
});

/** Both sides' evaluations, once both are in. */
export function gateEvaluations(gate: RebaseGateRun | undefined): { onto: Evaluation[]; child: Evaluation[] } | undefined {
  return gate?.ontoEvaluations && gate.childEvaluations ? { onto: gate.ontoEvaluations, child: gate.childEvaluations } : undefined;
}
