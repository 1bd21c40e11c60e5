// The recent results a run keeps for a strategy that reads other proposals' failures (a
// strategy's `evidence` > 0): each reflective proposal's parent records and scores, reported
// with its end, kept newest first in launch order (step, then place in the step) and cut to the
// strategy's count. Launch order, not arrival order: a batched step's proposals end in any order,
// and what the next step's proposals read must not depend on it (a batched run stays a function
// of its seed); an async run folds its ends in its logged order, so a resumed run keeps the same
// history. Plain data, held in the optimizer's context.
import type { Candidate, Evaluation, ReflectiveDataset } from '../core/adapter.js';
import { scoresOf } from '../core/scores.js';
import type { ReflectionEvidence } from './reflectionStrategy.js';

/** A proposal's parent results as evidence for later proposals (undefined when it built no records). */
export function parentEvidence(proposal: { id: string; parent: Candidate; dataset?: ReflectiveDataset; parentEvaluations: readonly Evaluation[] }): ReflectionEvidence | undefined {
  if (proposal.dataset === undefined || proposal.parentEvaluations.length === 0) return undefined;
  return { candidate: proposal.parent, role: 'parent', dataset: proposal.dataset, scores: scoresOf(proposal.parentEvaluations), proposal: proposal.id };
}

/** [step, task] of a `p<step>-<task>` id; a merge or an unknown id sorts oldest. */
function launchOrder(id: string | undefined): [number, number] {
  const m = /^p(\d+)-(\d+)$/.exec(id ?? '');
  return m ? [Number(m[1]), Number(m[2])] : [-1, -1];
}

/** The history with `entry` in it: newest first by launch order, one entry per proposal, at most `keep`. */
export function keepEvidence(history: readonly ReflectionEvidence[], entry: ReflectionEvidence, keep: number): ReflectionEvidence[] {
  const others = history.filter((e) => e.proposal !== entry.proposal);
  const newestFirst = (a: ReflectionEvidence, b: ReflectionEvidence) => {
    const [x, y] = [launchOrder(a.proposal), launchOrder(b.proposal)];
    return y[0] - x[0] || y[1] - x[1];
  };
  return [...others, entry].sort(newestFirst).slice(0, Math.max(0, keep));
}
