// Which proposals' children go on to the valset and into the pool, decided here and nowhere
// else: a child must pass its minibatch gate, be new to the pool, and be selected among its
// step's accepted children (all of them, only the best margin, or the top k margins; identical
// texts are deduplicated). The same test runs again when a child is folded, since a twin may
// have joined the pool while it was on the valset. Every proposal not kept gets its reason.
import type { MinibatchOutcome, SelectionDecision } from '../core/proposal.js';
import type { ProposalSelection } from '../../settingValues.js';

export type { MinibatchOutcome, SelectionDecision };

/** Where a child text already sits in the pool (-1 if it does not). */
export type PoolLookup = (childHash: string) => number;

export const alreadyInPoolReason = (index: number): string => `child is already in the pool as candidate ${index}`;

/** Why this outcome's child cannot join the pool (null: it can). */
export function rejectionReason(outcome: MinibatchOutcome, inPool: PoolLookup): string | null {
  if (outcome.status === 'skipped') return outcome.reason;
  const { verdict } = outcome;
  if (!verdict.accepted) return `failed acceptance: child minibatch sum ${verdict.childSum} vs parent ${verdict.parentSum}`;
  const existing = inPool(outcome.childHash);
  return existing >= 0 ? alreadyInPoolReason(existing) : null;
}

/** Outcomes in task order; decisions come back in the same order. */
export function selectProposals(
  outcomes: readonly MinibatchOutcome[],
  mode: ProposalSelection,
  inPool: PoolLookup,
): SelectionDecision[] {
  const decisions = new Map<number, SelectionDecision>();
  const eligible: Array<Extract<MinibatchOutcome, { status: 'judged' }>> = [];
  for (const outcome of outcomes) {
    const reason = rejectionReason(outcome, inPool);
    if (reason !== null) decisions.set(outcome.task, { task: outcome.task, selected: false, reason });
    else eligible.push(outcome as Extract<MinibatchOutcome, { status: 'judged' }>);
  }
  // Best margins first; equal margins keep task order (the sort is stable).
  const ranked = mode === 'all' ? eligible : [...eligible].sort((a, b) => b.verdict.margin - a.verdict.margin);
  const limit = mode === 'all' ? Infinity : mode === 'best' ? 1 : Math.max(1, mode.topK);
  const keptByHash = new Map<string, number>();
  for (const outcome of ranked) {
    const twin = keptByHash.get(outcome.childHash);
    if (twin !== undefined) {
      decisions.set(outcome.task, { task: outcome.task, selected: false, reason: `duplicate of the child of task ${twin}` });
    } else if (keptByHash.size < limit) {
      keptByHash.set(outcome.childHash, outcome.task);
      decisions.set(outcome.task, { task: outcome.task, selected: true, reason: 'selected' });
    } else {
      const label = mode === 'best' ? 'the best' : `the top ${limit}`;
      decisions.set(outcome.task, { task: outcome.task, selected: false, reason: `not selected: margin ${outcome.verdict.margin} is not among ${label}` });
    }
  }
  return outcomes.map((o) => decisions.get(o.task) as SelectionDecision);
}

/**
 * A proposal decided on its own: an async proposal (no step to share), or one that ended without
 * reaching its step's selection (skipped, rejected, failed). Selected iff it can join the pool.
 */
export function decideAlone(outcome: MinibatchOutcome, inPool: PoolLookup): SelectionDecision {
  const reason = rejectionReason(outcome, inPool);
  return { task: outcome.task, selected: reason === null, reason: reason ?? 'selected' };
}

/**
 * With selection 'all', an accepted child that is new to the pool needs nothing from the rest
 * of its step, so its valset evaluation may start at once; duplicates within the step are paid
 * once by the evaluation cache and dropped when the step is folded.
 */
export function mayStartValsetEarly(mode: ProposalSelection, outcome: MinibatchOutcome, inPool: PoolLookup): boolean {
  return mode === 'all' && rejectionReason(outcome, inPool) === null;
}
