// The metric-call ledger: the single place that answers "may I start this proposal?". A
// proposal is reserved before dispatch at its worst case and settled after with what it really
// spent; the difference is refunded. Spent + reserved never passes maxMetricCalls, so a run
// cannot overshoot whatever finishes when. (Dollars are reserved per call: dollarGate.ts.)

export interface BudgetLimits {
  maxMetricCalls?: number;
}

export interface Reservation {
  readonly calls: number;
}

export class BudgetLedger {
  spentCalls = 0;
  reservedCalls = 0;

  /** `spentBefore`: calls already paid that no reservation covers (an earlier process's failed calls, on resume). */
  constructor(
    readonly limits: BudgetLimits,
    spentBefore = 0,
  ) {
    this.spentCalls = spentBefore;
  }

  remainingCalls(): number {
    return (this.limits.maxMetricCalls ?? Infinity) - this.spentCalls - this.reservedCalls;
  }

  canAfford(calls: number): boolean {
    return calls <= this.remainingCalls();
  }

  /** Reserves the worst case, or returns null when the budget cannot pay for it. */
  reserve(calls: number): Reservation | null {
    if (!this.canAfford(calls)) return null;
    this.reservedCalls += calls;
    return { calls };
  }

  /**
   * Settles a reservation with what was really spent. Spending more calls than reserved is a bug
   * in the caller (requests are bounded by what was reserved), so it throws.
   */
  settle(reservation: Reservation, spentCalls: number): void {
    if (spentCalls > reservation.calls) {
      throw new Error(`budget invariant broken: spent ${spentCalls} metric calls on a reservation of ${reservation.calls}`);
    }
    this.reservedCalls -= reservation.calls;
    this.spentCalls += spentCalls;
  }
}
