// An async proposal's child passed its minibatch gate, but its parent gained newer descendants
// while it was in flight: left as it is, it would join the pool as a sibling of work it never
// saw, and lineages would stay shallow. With rebasing on, its edit is replayed onto a newer
// candidate instead (proposer/rebase.ts), and the rebased child must pass the gate again, against
// that candidate, before a valset evaluation is paid for. Which candidate is the policy's choice.
import type { Candidate } from '../core/adapter.js';
import type { RebasePolicy } from '../../settingValues.js';
import { hashedChild } from '../proposer/childCandidate.js';
import { rebaseEdit } from '../proposer/rebase.js';
import { isAncestor, type CandidatePool } from '../core/candidatePool.js';

export type { RebasePolicy };

// The policies:
// - 'off': a stale child is judged as it is.
// - 'newest-descendant': onto the parent's newest descendant that joined since the parent was drawn.
// - 'best-descendant': onto the best-scoring of those descendants.
// - 'best': onto the best of the candidates that joined since the parent was drawn (not the
//   parent itself nor an ancestor of it). Tried and not kept: only when that candidate is the
//   pool's overall best (rebases fewer children; worse on 48 seeds, bench/README.md).
//   Also tried and not kept: never onto a newcomer scoring below the parent (no change on the
//   hotel task at 750 calls, bench/README.md).
// - 'pool-best': onto the pool's best, whenever the parent is not it (nor an ancestor of it),
//   whether or not anything joined while the child ran. Not a staleness rule only: with one
//   proposal in flight it still moves every edit made on another front member onto the best, a
//   change to GEPA's selection itself (measured in bench/README.md; off by default).

/** The candidate to rebase onto, or -1 when the child is not stale under the policy. */
export function rebaseTarget(pool: CandidatePool, parent: number, poolSizeAtStart: number, policy: RebasePolicy): number {
  if (policy === 'off') return -1;
  const joined: number[] = [];
  for (let i = poolSizeAtStart; i < pool.candidates.length; i++) joined.push(i);
  if (policy === 'pool-best') {
    const best = bestOf(pool, pool.candidates.map((_, i) => i));
    return best !== parent && !isAncestor(pool.parents, best, parent) ? best : -1;
  }
  if (policy === 'best') {
    const best = bestOf(pool, joined);
    if (best === parent) return -1;
    return best >= 0 && !isAncestor(pool.parents, best, parent) ? best : -1;
  }
  const descendants = joined.filter((i) => isAncestor(pool.parents, parent, i));
  if (descendants.length === 0) return -1;
  return policy === 'newest-descendant' ? (descendants.at(-1) as number) : bestOf(pool, descendants);
}

/** Highest mean among `indices`; ties go to the newer one (it holds more of the recent work). */
function bestOf(pool: CandidatePool, indices: readonly number[]): number {
  let best = -1;
  for (const i of indices) if (best < 0 || (pool.valScores[i] ?? 0) >= (pool.valScores[best] ?? 0)) best = i;
  return best;
}


export type StaleChildPlan =
  | { kind: 'as-is' }
  /** Judge `child` (the edit on `onto`) against candidate `onto` on the same minibatch. */
  | { kind: 'rebase'; onto: number; child: Candidate; childHash: string }
  /** Nothing left to add: the newer candidate holds the edit already. */
  | { kind: 'contained'; onto: number; reason: string };

export function planStaleChild(pool: CandidatePool, p: { parents: readonly number[]; poolSizeAtStart: number; kind: 'reflective' | 'merge' }, child: Candidate, policy: RebasePolicy): StaleChildPlan {
  const parent = p.parents[0];
  if (p.kind !== 'reflective' || parent === undefined) return { kind: 'as-is' };
  const onto = rebaseTarget(pool, parent, p.poolSizeAtStart, policy);
  if (onto < 0) return { kind: 'as-is' };
  const rebased = rebaseEdit(pool.candidates[parent] as Candidate, child, pool.candidates[onto] as Candidate);
  // A conflict keeps the child as it is: it still competes on its own merits.
  if (rebased.kind === 'conflict') return { kind: 'as-is' };
  if (rebased.kind === 'contained') return { kind: 'contained', onto, reason: `its edit is already in candidate ${onto}, which joined while it ran` };
  return { kind: 'rebase', onto, ...hashedChild(rebased.child) };
}
