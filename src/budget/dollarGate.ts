// The dollar budget. A call's worst-case price is only known when it is dispatched (its prompt,
// its candidate), so dollars are reserved per call at dispatch, against the call's own estimate,
// and settled with what the server reported. Reserved + spent never passes maxCostUsd. A call
// the rest cannot pay for now waits until calls in flight settle and give back what they did
// not use; it is refused only when nothing is in flight and it still does not fit. Estimates
// are calibrated: once a call cost more than its reservation, every later estimate is scaled
// by the largest actual/estimate ratio seen. Same convention as the metric-call ledger:
// reserve() returns a reservation or null, settle() takes it back with what was spent.

export class DollarBudgetExhausted extends Error {
  override name = 'DollarBudgetExhausted';
}

export interface DollarReservation {
  readonly usd: number;
  /** The caller's estimate before calibration (what the actual cost is compared with). */
  readonly estimateUsd?: number;
}

/** For money spent without a reservation (a call replayed from a run log was paid earlier). */
export const NOTHING_RESERVED: DollarReservation = { usd: 0 };

const EPSILON = 1e-12;

interface Waiter {
  estimateUsd: number;
  resolve: (reservation: DollarReservation) => void;
  reject: (error: unknown) => void;
  detach: () => void;
}

export class DollarGate {
  spentUsd = 0;
  reservedUsd = 0;
  /** The largest single-call reservation seen: less than this left means nothing more can start. */
  largestEstimateUsd = 0;
  /** Estimates are multiplied by this: the largest actual/estimate ratio seen, at least 1. */
  calibration = 1;
  private toldExhausted = false;
  private readonly waiters: Waiter[] = [];

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

  /** Calls waiting for dollars held by calls in flight. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** Reserves `estimateUsd` (calibrated), or returns null when the rest cannot pay it now. */
  reserve(estimateUsd: number): DollarReservation | null {
    const estimate = Math.max(0, estimateUsd);
    const usd = this.calibrated(estimate);
    if (usd > this.remainingUsd() + EPSILON) return null;
    this.reservedUsd += usd;
    return { usd, estimateUsd: estimate };
  }

  /**
   * Reserves `estimateUsd`, waiting (first come, first served) while calls in flight hold what it
   * needs; rejects with DollarBudgetExhausted when nothing is in flight and it does not fit, and
   * with the signal's reason when aborted while waiting.
   */
  acquire(estimateUsd: number, signal?: AbortSignal): Promise<DollarReservation> {
    const estimate = Math.max(0, estimateUsd);
    if (this.waiters.length === 0) {
      const reservation = this.reserve(estimate);
      if (reservation) return Promise.resolve(reservation);
      if (this.reservedUsd <= EPSILON) return Promise.reject(this.refusal(estimate));
    }
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(signal?.reason);
      };
      const waiter: Waiter = { estimateUsd: estimate, resolve, reject, detach: () => signal?.removeEventListener('abort', onAbort) };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Why a call of `estimateUsd` was refused. */
  refusal(estimateUsd: number): DollarBudgetExhausted {
    return new DollarBudgetExhausted(
      `the dollar budget cannot pay for this call (worst case $${this.calibrated(Math.max(0, estimateUsd)).toFixed(6)}, $${Math.max(0, this.remainingUsd()).toFixed(6)} left of $${this.maxCostUsd})`,
    );
  }

  /** Settles a reservation with the call's real cost, learns from an estimate that was too low, and serves the waiting calls that now fit. */
  settle(reservation: DollarReservation, actualUsd: number): void {
    const actual = Math.max(0, actualUsd);
    this.reservedUsd = Math.max(0, this.reservedUsd - reservation.usd);
    // An estimate that was too low must not push spending past the limit unnoticed: the excess is
    // still recorded (money was spent), later estimates are scaled up, and exhausted() may stop the run.
    this.spentUsd += actual;
    const estimate = reservation.estimateUsd ?? 0;
    if (estimate > 0 && actual > reservation.usd) this.calibration = Math.max(this.calibration, actual / estimate);
    this.serveWaiters();
    this.notice();
  }

  private calibrated(estimate: number): number {
    const usd = estimate * this.calibration;
    this.largestEstimateUsd = Math.max(this.largestEstimateUsd, usd);
    this.notice();
    return usd;
  }

  private serveWaiters(): void {
    while (this.waiters.length > 0) {
      const waiter = this.waiters[0] as Waiter;
      const reservation = this.reserve(waiter.estimateUsd);
      // Nothing in flight will give anything back: the first in line can never fit.
      if (!reservation && this.reservedUsd > EPSILON) return;
      this.waiters.shift();
      waiter.detach();
      if (reservation) waiter.resolve(reservation);
      else waiter.reject(this.refusal(waiter.estimateUsd));
    }
  }

  private notice(): void {
    if (this.toldExhausted || !this.onExhausted || !this.exhausted()) return;
    this.toldExhausted = true;
    this.onExhausted();
  }
}
