// The metric-call ledger, a plain value: the single answer to "may I start this?". A proposal's
// worst case is reserved before it starts and settled after with what it really spent; the
// difference is refunded. reserve() returns the new ledger and the reservation, or null when the
// budget cannot pay; settle() takes that very reservation back. Spent + reserved never passes
// maxMetricCalls, so a run cannot overshoot whatever finishes when. (Dollars: dollarGate.ts.)
// Reservations are asked in evaluations and held in calls: with a refiner an evaluation may make
// up to `callsPerEvaluation` calls (the original and each refinement), all paid from this budget.
// Room budget/: imported by gepa/, evaluation/ and the machines; pure, it imports none of the rooms that run things.

export interface BudgetLedger {
  /** The limit (Infinity without one). */
  readonly maxMetricCalls: number;
  readonly spentCalls: number;
  readonly reservedCalls: number;
  /** Metric calls one evaluation may make at most (1; 1 + maxRefinements with a refiner). */
  readonly callsPerEvaluation?: number;
}

export interface Reservation {
  readonly calls: number;
}

/** What reserve() grants: the ledger with the reservation in it, and the reservation to settle later. */
export interface Reserved {
  ledger: BudgetLedger;
  reservation: Reservation;
}

/** What else a proposal's reservation must leave room for, besides the ledger's own limit. */
export interface SpendingLimits {
  /** Calls an earlier process paid that the resumed run has not replayed yet (heldCalls.ts). */
  heldCalls?: number;
  /** The dollars left cannot pay for the dearest call seen (the evaluator holds the dollar gate). */
  dollarsExhausted?: boolean;
}

/**
 * `spentBefore`: calls already paid that no reservation covers (an earlier process's failed calls,
 * on resume); `callsPerEvaluation`: the metric calls one evaluation may make (default 1).
 */
export function openLedger(maxMetricCalls: number | undefined, spentBefore = 0, callsPerEvaluation = 1): BudgetLedger {
  return { maxMetricCalls: maxMetricCalls ?? Infinity, spentCalls: spentBefore, reservedCalls: 0, ...(callsPerEvaluation === 1 ? {} : { callsPerEvaluation }) };
}

/**
 * The ledger with new counts, written out field by field: the search asks reserve() in loops (a
 * step's plan), and a literal of a known shape costs a fraction of an object spread. Same fields,
 * in openLedger's order.
 */
function withCounts(ledger: BudgetLedger, spentCalls: number, reservedCalls: number): BudgetLedger {
  const { maxMetricCalls, callsPerEvaluation } = ledger;
  return callsPerEvaluation === undefined ? { maxMetricCalls, spentCalls, reservedCalls } : { maxMetricCalls, spentCalls, reservedCalls, callsPerEvaluation };
}

/** The calls `evaluations` may make at most. */
const callsOf = (ledger: BudgetLedger, evaluations: number): number => evaluations * (ledger.callsPerEvaluation ?? 1);

/** Calls neither spent nor reserved (Infinity without a limit). */
export const remainingCalls = (ledger: BudgetLedger): number => ledger.maxMetricCalls - ledger.spentCalls - ledger.reservedCalls;

/** Reserves the calls of `evaluations`, or null when the calls left (less those held) or the dollars left cannot pay. */
export function reserve(ledger: BudgetLedger, evaluations: number, limits: SpendingLimits = {}): Reserved | null {
  const calls = callsOf(ledger, evaluations);
  if (limits.dollarsExhausted === true || calls > remainingCalls(ledger) - (limits.heldCalls ?? 0)) return null;
  return { ledger: withCounts(ledger, ledger.spentCalls, ledger.reservedCalls + calls), reservation: { calls } };
}

/**
 * Adds the calls of `evaluations` to a reservation already held (a rebase's extra calls, a held
 * child's valset evaluation), or null when they cannot be paid (the calls left less those `limits` hold).
 */
export function enlarge(ledger: BudgetLedger, reservation: Reservation, evaluations: number, limits: SpendingLimits = {}): Reserved | null {
  const more = reserve(ledger, evaluations, limits);
  return more && { ledger: more.ledger, reservation: { calls: reservation.calls + more.reservation.calls } };
}

/**
 * The seed's valset evaluation, without which there is no run: granted even when an earlier
 * process's failed calls leave less than it needs (validation makes that impossible in a fresh run).
 */
export function reserveRegardless(ledger: BudgetLedger, evaluations: number): Reserved {
  const calls = callsOf(ledger, evaluations);
  return { ledger: withCounts(ledger, ledger.spentCalls, ledger.reservedCalls + calls), reservation: { calls } };
}

/**
 * Settles a reservation with what was really spent. Spending more calls than reserved is a bug
 * in the caller (requests are bounded by what was reserved), so it throws.
 */
export function settle(ledger: BudgetLedger, reservation: Reservation, spentCalls: number): BudgetLedger {
  if (spentCalls > reservation.calls) {
    throw new Error(`budget invariant broken: spent ${spentCalls} metric calls on a reservation of ${reservation.calls}`);
  }
  return withCounts(ledger, ledger.spentCalls + spentCalls, ledger.reservedCalls - reservation.calls);
}

/** Why a refused reservation of `evaluations` was refused: the calls left, else the dollars. */
export function refusalReason(ledger: BudgetLedger, evaluations: number, limits: SpendingLimits = {}): 'maxMetricCalls' | 'maxCostUsd' {
  return remainingCalls(ledger) - (limits.heldCalls ?? 0) < callsOf(ledger, evaluations) ? 'maxMetricCalls' : 'maxCostUsd';
}

/**
 * Holds `calls` metric calls from the start for work the run does at its end (the holdout's
 * scoring, which is never refined): the search then stops that many calls earlier, and the budget
 * is never exceeded. Settled like any reservation.
 */
export function holdCalls(ledger: BudgetLedger, calls: number): Reserved {
  return { ledger: withCounts(ledger, ledger.spentCalls, ledger.reservedCalls + calls), reservation: { calls } };
}
