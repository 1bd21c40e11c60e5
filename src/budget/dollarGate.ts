// The dollar budget. A call's worst-case price is only known when it is dispatched (its prompt,
// its candidate), so dollars are reserved per call at dispatch, against the call's own estimate,
// and settled with what the server reported. Reserved + spent never passes maxCostUsd; a call
// the rest cannot pay for is not made.

export class DollarBudgetExhausted extends Error {
  override name = 'DollarBudgetExhausted';
}

export class DollarGate {
  spentUsd = 0;
  reservedUsd = 0;
  /** The largest single-call estimate seen: less than this left means nothing more can start. */
  largestEstimateUsd = 0;

  constructor(readonly maxCostUsd?: number) {}

  remainingUsd(): number {
    return (this.maxCostUsd ?? Infinity) - this.spentUsd - this.reservedUsd;
  }

  /** True when the rest cannot pay for a call as expensive as the dearest seen so far. */
  exhausted(): boolean {
    if (this.maxCostUsd === undefined) return false;
    const left = this.maxCostUsd - this.spentUsd;
    return left <= 0 || left < this.largestEstimateUsd;
  }

  /** Reserves `estimateUsd`, or throws DollarBudgetExhausted when the rest cannot pay it. */
  reserve(estimateUsd: number): number {
    const estimate = Math.max(0, estimateUsd);
    this.largestEstimateUsd = Math.max(this.largestEstimateUsd, estimate);
    if (estimate > this.remainingUsd() + 1e-12) {
      throw new DollarBudgetExhausted(
        `the dollar budget cannot pay for this call (worst case $${estimate.toFixed(6)}, $${Math.max(0, this.remainingUsd()).toFixed(6)} left of $${this.maxCostUsd})`,
      );
    }
    this.reservedUsd += estimate;
    return estimate;
  }

  /** Settles a reservation with the call's real cost (which the estimate bounds). */
  settle(reservedUsd: number, actualUsd: number): void {
    this.reservedUsd -= reservedUsd;
    // An estimate that was too low must not push spending past the limit unnoticed: the excess is
    // still recorded (money was spent), and exhausted() then stops the run.
    this.spentUsd += Math.max(0, actualUsd);
  }
}
