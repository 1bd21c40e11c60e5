// The budget's last calls (`spendLastCalls`): a proposal that started owing its valset evaluation
// (proposalPlanner.ts starts those once no proposal could be paid in full) has its selected child
// held until those calls are reserved. Async: reserved as proposals in flight give calls back (so
// no new proposal takes them first), denied when nothing in flight could; batched: once the rest
// of its step has finished, all or nothing in task order, so whatever finished first, the same run.
import { enlarge, remainingCalls, type BudgetLedger, type SpendingLimits } from '../../budget/budgetLedger.js';
import { isAccepted, type Proposal } from '../core/proposal.js';

/** Why a held child was denied its valset evaluation. */
export const UNPAID_VALSET_REASON = 'the budget left could not pay for its valset evaluation';

/** What the held children are decided over: the records in flight (the run's table, changed in place), the step, the ledger. */
export interface HeldState {
  proposals: Record<string, Proposal>;
  /** The current batched step's ids (empty when async). */
  stepIds: readonly string[];
  ledger: BudgetLedger;
  /** What else the calls left must leave room for: on resume, the calls an earlier process paid that are not replayed yet. */
  limits?: SpendingLimits;
}

/** A decision for a held child: its grant (with its valset evaluation reserved) or its denial. */
export interface HeldAnswer {
  id: string;
  answer: 'grant' | 'deny';
}

/** Reserves what `p` owes from the calls left (less those `limits` hold): all of it, or as much as is left when `partly`. */
function reserveOwed(ledger: BudgetLedger, limits: SpendingLimits, p: Proposal, partly: boolean): { ledger: BudgetLedger; p: Proposal } {
  const owed = p.valsetOwed ?? 0;
  const calls = partly ? Math.min(owed, remainingCalls(ledger) - (limits.heldCalls ?? 0)) : owed;
  const enlarged = calls > 0 ? enlarge(ledger, p.reservation, calls, limits) : null;
  if (!enlarged) return { ledger, p };
  return { ledger: enlarged.ledger, p: { ...p, reservation: enlarged.reservation, valsetOwed: owed - calls } };
}

/**
 * The children just granted (`granted`) whose valset evaluation is owed are held instead (their
 * grant taken back until it is paid); then every held child that can be decided now is decided.
 * The records change in place; returns the ids whose grant was taken back, and the decisions.
 */
export function payForGrants(state: HeldState, granted: readonly string[]): { state: HeldState; taken: string[]; answers: HeldAnswer[] } {
  const { proposals } = state;
  const taken: string[] = [];
  for (const id of granted) {
    const p = proposals[id];
    if (!p || (p.valsetOwed ?? 0) === 0) continue;
    proposals[id] = { ...p, granted: false, valsetHeld: true };
    taken.push(id);
  }
  const known = heldCount.get(proposals);
  if (known !== undefined) heldCount.set(proposals, known + taken.length);
  // None held in this table (it was walked, and none taken since): nothing to decide, no walk.
  if (known === 0 && taken.length === 0) return { state, taken, answers: [] };
  const decided = decideHeld(state);
  return { state: decided.state, taken, answers: decided.answers };
}

/**
 * How many held children a table of proposals in flight has, as of its last walk here (and the
 * children held since): the table is walked at every verdict and end, and it holds a held child
 * only in a run's last calls. Keyed by the table object, which the run changes in place; a table
 * not walked yet (a copy, one read back on resume) is walked. Only payForGrants holds a child and
 * only decideHeld lets one go, so the count is never below the truth: a count of 0 is exact.
 */
const heldCount = new WeakMap<object, number>();

/** An accepted child not yet answered (waiting for its turn, or held). */
const awaitingAnswer = (q: Proposal) => isAccepted(q.outcome) && !q.granted && q.decision === undefined;

/** In flight and waiting for no answer (decideHeld says why only these count). */
const mayGiveCallsBack = (q: Proposal | undefined) => q !== undefined && q.spend === undefined && q.valsetHeld !== true && !awaitingAnswer(q);

/** Decides the held children that can be decided now (launch order; a batched step's in task order); their records change in place. */
export function decideHeld(state: HeldState): { state: HeldState; answers: HeldAnswer[] } {
  // A loop, not Object.values: the table is a dictionary-mode object, and it rarely holds a held child.
  const held: Proposal[] = [];
  for (const id in state.proposals) if (state.proposals[id]?.valsetHeld === true) held.push(state.proposals[id]);
  if (held.length === 0) {
    heldCount.set(state.proposals, 0);
    return { state, answers: [] };
  }
  const { proposals } = state;
  let { ledger } = state;
  const answers: HeldAnswer[] = [];
  // What may still give calls back: proposals in flight that wait for no answer (a child waiting
  // for its turn may be waiting for this very one: counting it would hold both forever).
  // Batched: only once the rest of the step has finished (then the ledger is the same whatever
  // finished first), all of the step's held children together, in task order.
  const stepDone = !state.stepIds.some((id) => mayGiveCallsBack(proposals[id]));
  for (const { id } of held) {
    const batched = state.stepIds.includes(id);
    if (batched && !stepDone) continue;
    const paid = reserveOwed(ledger, state.limits ?? {}, proposals[id] as Proposal, !batched);
    ledger = paid.ledger;
    const p = paid.p;
    if ((p.valsetOwed ?? 0) === 0) {
      proposals[id] = { ...p, valsetHeld: false, granted: true };
      answers.push({ id, answer: 'grant' });
    } else if (batched || !Object.values(proposals).some((q) => q.id !== id && mayGiveCallsBack(q))) {
      // Nothing in flight that could give calls back: denied (what it holds is refunded when it finishes).
      proposals[id] = { ...p, valsetHeld: false, decision: { task: p.task, selected: false, reason: UNPAID_VALSET_REASON } };
      answers.push({ id, answer: 'deny' });
    } else {
      proposals[id] = p;
    }
  }
  // Each answer let one held child go.
  heldCount.set(proposals, held.length - answers.length);
  return { state: { ...state, proposals, ledger }, answers };
}
