// The budget ledger: the single place that answers "may I start this?". Work is reserved before
// dispatch at its worst case (metric calls, dollars) and settled after with what it really
// spent; the difference is refunded. Spent + reserved never passes a limit, so a run cannot
// overshoot its budget whatever finishes when.

export interface BudgetLimits {
  maxMetricCalls?: number;
  maxCostUsd?: number;
}

export interface Reservation {
  readonly calls: number;
  readonly usd: number;
}

export class BudgetLedger {
  spentCalls = 0;
  spentUsd = 0;
  reservedCalls = 0;
  reservedUsd = 0;

  constructor(readonly limits: BudgetLimits) {}

  remainingCalls(): number {
    return (this.limits.maxMetricCalls ?? Infinity) - this.spentCalls - this.reservedCalls;
  }

  remainingUsd(): number {
    return (this.limits.maxCostUsd ?? Infinity) - this.spentUsd - this.reservedUsd;
  }

  canAfford(calls: number, usd = 0): boolean {
    return calls <= this.remainingCalls() && usd <= this.remainingUsd() + 1e-12;
  }

  /** Reserves the worst case, or returns null when the budget cannot pay for it. */
  reserve(calls: number, usd = 0): Reservation | null {
    if (!this.canAfford(calls, usd)) return null;
    this.reservedCalls += calls;
    this.reservedUsd += usd;
    return { calls, usd };
  }

  /**
   * Settles a reservation with what was really spent. Spending more calls than reserved is a bug
   * in the caller (requests are bounded by what was reserved), so it throws.
   */
  settle(reservation: Reservation, spentCalls: number, spentUsd = 0): void {
    if (spentCalls > reservation.calls) {
      throw new Error(`budget invariant broken: spent ${spentCalls} metric calls on a reservation of ${reservation.calls}`);
    }
    this.reservedCalls -= reservation.calls;
    this.reservedUsd -= reservation.usd;
    this.spentCalls += spentCalls;
    this.spentUsd += spentUsd;
  }

  /** Records spending that happened outside any reservation (e.g. replayed or forced work). */
  record(spentCalls: number, spentUsd = 0): void {
    this.spentCalls += spentCalls;
    this.spentUsd += spentUsd;
  }

  callsExhausted(minimumUseful: number): boolean {
    return this.remainingCalls() < minimumUseful;
  }
}
