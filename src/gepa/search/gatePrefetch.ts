// Async, children decided in launch order, `schedule.speculate: 'rebase-gate'`: while a held
// child waits for one older proposal that is on its valset, its proposer evaluates ahead of time
// what its rebase gate will ask for, whichever way that proposal's valset score turns out: the
// child's edit replayed onto each possible target, and that target, on the gate's examples. The
// verdict is still decided in launch order by the ordinary rebase; its gate is then served from
// the run's evaluation cache at no cost and no wait, and the other gate's calls were spent for nothing.
import { enlarge, type BudgetLedger } from '../../budget/budgetLedger.js';
import { hashedChild } from '../proposer/childCandidate.js';
import { rebaseEdit } from '../proposer/rebase.js';
import type { CandidatePool } from '../core/candidatePool.js';
import type { Proposal } from '../core/proposal.js';
import type { Candidate } from '../core/adapter.js';
import type { RebaseGate, RebasePolicy } from '../../settingValues.js';
import { isHeld } from './proposalDecisions.js';
import { planStaleChild } from './staleChild.js';

/** Optimizer -> proposer of a held child: evaluate the gate of a rebase of `child` onto `onto` now, its verdict not yet asked for. */
export interface GatePrefetch {
  /** The message's type. */
  type: 'rebase.prefetch';
  /** The candidate the child may be rebased onto. */
  onto: Candidate;
  /** Its content hash. */
  ontoHash: string;
  /** The held child's edit replayed onto `onto`. */
  child: Candidate;
  /** The replayed child's content hash. */
  childHash: string;
  /** Which examples the gate runs on (schedule.rebaseGate). */
  gate: RebaseGate;
}

/**
 * The held children whose gate can be evaluated ahead now: each waits for exactly one proposal
 * still in flight, granted its valset evaluation. Once that proposal's child joins, the child's
 * rebase target is either that child (when it is the best of those that joined) or the target it
 * has now, so both gates are evaluated ahead (each when the edit replays onto it cleanly). Each
 * child is marked (one prefetch per child, its record changed in the run's table in place) and its
 * reservation enlarged by `extraCalls` per gate (a gate's worst case); a child the budget cannot
 * enlarge for is left to wait as it is.
 */
export function gatePrefetches(
  state: { proposals: Record<string, Proposal>; pool: CandidatePool; ledger: BudgetLedger },
  settings: { extraCalls: number; gate: RebaseGate; policy: RebasePolicy },
): { proposals: Record<string, Proposal>; ledger: BudgetLedger; messages: Array<{ id: string; message: GatePrefetch }> } {
  const { proposals } = state;
  let { ledger } = state;
  const messages: Array<{ id: string; message: GatePrefetch }> = [];
  for (const n of Object.values(proposals)) {
    if (n.gatePrefetched || n.kind !== 'reflective' || !n.child || !isHeld(n)) continue;
    const blockers = (n.waitingFor ?? []).map((id) => state.proposals[id]).filter((q): q is Proposal => q !== undefined && q.spend === undefined);
    const q = blockers[0];
    const parent = state.pool.candidates[n.parents[0] as number];
    if (blockers.length !== 1 || !q?.granted || !q.child || !parent) continue;
    const gates: GatePrefetch[] = [];
    const ontoNewcomer = rebaseEdit(parent, n.child, q.child);
    if (ontoNewcomer.kind === 'rebased') gates.push({ type: 'rebase.prefetch', onto: q.child, ontoHash: hashedChild(q.child).childHash, ...hashedChild(ontoNewcomer.child), gate: settings.gate });
    const asNow = planStaleChild(state.pool, n, n.child, settings.policy);
    if (asNow.kind === 'rebase') {
      const onto = state.pool.candidates[asNow.onto] as Candidate;
      gates.push({ type: 'rebase.prefetch', onto, ontoHash: state.pool.hashes[asNow.onto] as string, child: asNow.child, childHash: asNow.childHash, gate: settings.gate });
    }
    const enlarged = gates.length > 0 ? enlarge(ledger, n.reservation, settings.extraCalls * gates.length) : null;
    if (!enlarged) continue;
    ledger = enlarged.ledger;
    proposals[n.id] = { ...n, reservation: enlarged.reservation, gatePrefetched: gates.map((g) => g.childHash) };
    for (const message of gates) messages.push({ id: n.id, message });
  }
  return { proposals, ledger, messages };
}
