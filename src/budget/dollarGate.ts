// The dollar budget. A call's worst-case price is only known when it is dispatched (its prompt,
// its candidate), so dollars are reserved per call at dispatch, against the call's own estimate,
// and settled with what the server reported. Reserved + spent never passes maxCostUsd; a call
// the rest cannot pay for is not made. Same convention as the metric-call ledger: reserve()
// returns a reservation or null, settle() takes the reservation back with what was spent.

export class DollarBudgetExhausted extends Error {
  override name = 'DollarBudgetExhausted';
}

export interface DollarReservation {
  readonly usd: number;
}

/** For money spent without a reservation (a call replayed from a run log was paid earlier). */
export const NOTHING_RESERVED: DollarReservation = { usd: 0 };

export class DollarGate {
  spentUsd = 0;
  reservedUsd = 0;
  /** The largest single-call estimate seen: less than this left means nothing more can start. */
  largestEstimateUsd = 0;
  private toldExhausted = false;

  /** `onExhausted` is called once, the first time the gate becomes exhausted(). */
  /** `heldUsd`: dollars spent elsewhere that still count (logged work a resumed run has not replayed). */
  constructor(
    readonly maxCostUsd?: number,
    private readonly onExhausted?: () => void,
    private readonly heldUsd: () => number = () => 0,
  ) {}

  remainingUsd(): number {
    return (this.maxCostUsd ?? Infinity) - this.spentUsd - this.heldUsd() - this.reservedUsd;
  }

  /** True when the rest cannot pay for a call as expensive as the dearest seen so far. */
  exhausted(): boolean {
    if (this.maxCostUsd === undefined) return false;
    const left = this.maxCostUsd - this.spentUsd - this.heldUsd();
    return left <= 0 || left < this.largestEstimateUsd;
  }

  /** Reserves `estimateUsd`, or returns null when the rest cannot pay it. */
  reserve(estimateUsd: number): DollarReservation | null {
    const usd = Math.max(0, estimateUsd);
    this.largestEstimateUsd = Math.max(this.largestEstimateUsd, usd);
    this.notice();
    if (usd > this.remainingUsd() + 1e-12) return null;
    this.reservedUsd += usd;
    return { usd };
  }

  /** Why a call of `estimateUsd` was refused. */
  refusal(estimateUsd: number): DollarBudgetExhausted {
    return new DollarBudgetExhausted(
      `the dollar budget cannot pay for this call (worst case $${Math.max(0, estimateUsd).toFixed(6)}, $${Math.max(0, this.remainingUsd()).toFixed(6)} left of $${this.maxCostUsd})`,
    );
  }

  /** Settles a reservation with the call's real cost (which the estimate bounds). */
  settle(reservation: DollarReservation, actualUsd: number): void {
    this.reservedUsd -= reservation.usd;
    // An estimate that was too low must not push spending past the limit unnoticed: the excess is
    // still recorded (money was spent), and exhausted() then stops the run.
    this.spentUsd += Math.max(0, actualUsd);
    this.notice();
  }

  private notice(): void {
    if (this.toldExhausted || !this.onExhausted || !this.exhausted()) return;
    this.toldExhausted = true;
    this.onExhausted();
  }
}
