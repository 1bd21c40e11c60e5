// Async, children decided in launch order, `schedule.speculate: 'rebase-gate'`: while a held
// child waits for one older proposal that is on its valset, its proposer evaluates ahead of time
// what its rebase gate will ask for, whichever way that proposal's valset score turns out: the
// child's edit replayed onto each possible target, and that target, on the gate's examples. The
// verdict is still decided in launch order by the ordinary rebase; its gate is then served from
// the run's evaluation cache at no cost and no wait, and the other gate's calls were spent for nothing.
// With 'rebase-gate-drop-unasked' both gates are spare work: what of the gate not asked for has not
// started when the verdict is decided is dropped, never paid. With 'rebase-gate-idle' the gates
// SPARE_GATES names also wait for idle worker slots, and are dropped whether asked for or not.
import { enlarge, type BudgetLedger } from '../../budget/budgetLedger.js';
import { hashedChild } from '../proposer/childCandidate.js';
import { rebaseEdit } from '../proposer/rebase.js';
import type { CandidatePool } from '../core/candidatePool.js';
import type { Proposal } from '../core/proposal.js';
import type { Candidate, RebaseGate, RebasePolicy, Speculation } from '../../types.js';
import { isHeld } from './proposalDecisions.js';
import { planStaleChild } from './staleChild.js';

/** Which of the two gates ahead: the one onto the awaited proposal's child, or the one onto the held child's present target. */
export type PrefetchedGate = 'newcomer' | 'target';

/**
 * `speculate: 'rebase-gate-idle'`: the gates ahead evaluated in idle slots only (both; bench/README.md,
 * "A seventh round", measures the other choices, set here for the runs so named).
 */
export const SPARE_GATES: readonly PrefetchedGate[] = ['newcomer', 'target'];

/** How a gate ahead is queued: as ordinary work, or as spare work in its kind's turn or in idle slots only. */
export type GateQueueing = 'ordinary' | 'in-turn' | 'idle-slots';

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
  /**
   * Set when the gate is spare work: its calls not started when the child's verdict comes are
   * dropped, unpaid, unless the verdict is its rebase ('in-turn': `speculate: 'rebase-gate-drop-unasked'`,
   * queued as ordinary child work), or whatever the verdict ('idle-slots': 'rebase-gate-idle', run only in slots nothing else wants).
   */
  spare?: 'in-turn' | 'idle-slots';
}

/**
 * The held children whose gate can be evaluated ahead now: each waits for exactly one proposal
 * still in flight, granted its valset evaluation. Once that proposal's child joins, the child's
 * rebase target is either that child (when it is the best of those that joined) or the target it
 * has now, so both gates are evaluated ahead (each when the edit replays onto it cleanly). Each
 * child is marked (one prefetch per child) and its reservation enlarged by `extraCalls` per gate
 * (a gate's worst case); a child the budget cannot enlarge for is left to wait as it is. Each gate
 * is queued as `settings.queueing` says (what of a spare gate is dropped is given back when the child settles).
 */
export function gatePrefetches(
  state: { proposals: Readonly<Record<string, Proposal>>; pool: CandidatePool; ledger: BudgetLedger },
  settings: { extraCalls: number; gate: RebaseGate; policy: RebasePolicy; queueing?: (gate: PrefetchedGate) => GateQueueing },
): { proposals: Record<string, Proposal>; ledger: BudgetLedger; messages: Array<{ id: string; message: GatePrefetch }> } {
  const proposals = { ...state.proposals };
  let { ledger } = state;
  const messages: Array<{ id: string; message: GatePrefetch }> = [];
  for (const n of Object.values(state.proposals)) {
    if (n.gatePrefetched || n.kind !== 'reflective' || !n.child || !isHeld(n)) continue;
    const blockers = (n.waitingFor ?? []).map((id) => state.proposals[id]).filter((q): q is Proposal => q !== undefined && q.spend === undefined);
    const q = blockers[0];
    const parent = state.pool.candidates[n.parents[0] as number];
    if (blockers.length !== 1 || !q?.granted || !q.child || !parent) continue;
    const gates: GatePrefetch[] = [];
    const spare = (which: PrefetchedGate): Pick<GatePrefetch, 'spare'> => {
      const queueing = settings.queueing?.(which) ?? 'ordinary';
      return queueing === 'ordinary' ? {} : { spare: queueing };
    };
    const ontoNewcomer = rebaseEdit(parent, n.child, q.child);
    if (ontoNewcomer.kind === 'rebased') gates.push({ type: 'rebase.prefetch', onto: q.child, ontoHash: hashedChild(q.child).childHash, ...hashedChild(ontoNewcomer.child), gate: settings.gate, ...spare('newcomer') });
    const asNow = planStaleChild(state.pool, n, n.child, settings.policy);
    if (asNow.kind === 'rebase') {
      const onto = state.pool.candidates[asNow.onto] as Candidate;
      gates.push({ type: 'rebase.prefetch', onto, ontoHash: state.pool.hashes[asNow.onto] as string, child: asNow.child, childHash: asNow.childHash, gate: settings.gate, ...spare('target') });
    }
    const enlarged = gates.length > 0 ? enlarge(ledger, n.reservation, settings.extraCalls * gates.length) : null;
    if (!enlarged) continue;
    ledger = enlarged.ledger;
    proposals[n.id] = { ...n, reservation: enlarged.reservation, gatePrefetched: gates.map((g) => g.childHash) };
    for (const message of gates) messages.push({ id: n.id, message });
  }
  return { proposals, ledger, messages };
}

/** How `speculate` queues the gates ahead (none is evaluated ahead with 'none'). */
export function gateQueueing(speculate: Speculation): (gate: PrefetchedGate) => GateQueueing {
  if (speculate === 'rebase-gate-drop-unasked') return () => 'in-turn';
  if (speculate === 'rebase-gate-idle') return (gate) => (SPARE_GATES.includes(gate) ? 'idle-slots' : 'ordinary');
  return () => 'ordinary';
}
