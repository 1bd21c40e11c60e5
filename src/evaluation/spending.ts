// What the run's calls spend, in one place: the dollar budget (a call's worst case reserved before
// it takes a slot, settled with what it cost), the metric and reflection calls counted, the
// dollars spent, and what a request paid. Calls replayed from the run log, failed calls earlier
// processes paid and dollars spent before the run are counted here too, so a resumed run's
// figures and budget are the first process's. Nothing here runs a call.
import { NOTHING_RESERVED, type DollarGate, type DollarReservation } from '../budget/dollarGate.js';
import type { WorkJournal } from '../gepa/core/workJournal.js';

/** What one request paid for: metric calls (cache hits excluded) and dollars. */
export interface Paid {
  calls: number;
  usd: number;
}

export interface SpendingOptions {
  /** The dollar budget; absent = no dollar limit. */
  dollars?: DollarGate;
  /** Aborted when the run stops: a call waiting for dollars stops waiting. */
  signal: AbortSignal;
  journal?: WorkJournal;
  /** Dollars spent for the run before it started (an endpoint check). */
  preRunCostUsd?: number;
}

/** Dollars a failed call still cost (e.g. a reply with usage but no content). */
export function costOfError(error: unknown): number {
  const cost = (error as { costUsd?: unknown } | null)?.costUsd;
  return typeof cost === 'number' && cost > 0 ? cost : 0;
}

/** What reserve() answers without a dollar budget: one settled promise for every call, not one each. */
const NOTHING_RESERVED_NOW: Promise<DollarReservation> = Promise.resolve(NOTHING_RESERVED);

export class Spending {
  metricCalls = 0;
  reflectionCalls = 0;
  costUsd = 0;

  constructor(private readonly options: SpendingOptions) {
    // Failed calls of earlier processes were paid; resuming pays for them again (see EvaluationReuse).
    this.metricCalls = options.journal?.failedCalls?.() ?? 0;
    // This process's pre-run spend is logged, so that a resumed run still counts it beside its own.
    const now = options.preRunCostUsd ?? 0;
    if (now > 0) options.journal?.recordPreRunCost?.(now);
    const before = now + (options.journal?.earlierPreRunCostUsd?.() ?? 0);
    if (before > 0) this.spentEarlier(before);
  }

  /**
   * Reserves a call's worst case, waiting while calls in flight hold the dollars it needs; rejects
   * with DollarBudgetExhausted when even with nothing in flight it cannot be paid (the call is not made).
   */
  reserve(estimateUsd: number): Promise<DollarReservation> {
    const dollars = this.options.dollars;
    return dollars ? dollars.acquire(estimateUsd, this.options.signal) : NOTHING_RESERVED_NOW;
  }

  /** Settles a reservation with what the call cost (refunding the rest), into the run's and the request's dollars. */
  settle(reservation: DollarReservation, costUsd: number, paid?: Paid): void {
    this.options.dollars?.settle(reservation, costUsd);
    this.costUsd += costUsd;
    if (paid) paid.usd += costUsd;
  }

  /** Dollars spent without a reservation (before the run, or by an earlier process): the budget sees them too. */
  spentEarlier(costUsd: number, paid?: Paid): void {
    this.settle(NOTHING_RESERVED, costUsd, paid);
  }

  /** A metric call that starts now (in its slot), paid by `paid`'s request. */
  metricCall(paid: Paid): void {
    this.metricCalls++;
    paid.calls++;
  }

  /** A reflection call, made now or replayed from the log. */
  reflectionCall(): void {
    this.reflectionCalls++;
  }

  /** A metric call an earlier process paid for (replayed from the log): counted, with its dollars, as it was then. */
  replayedMetricCall(costUsd: number, paid: Paid): void {
    this.metricCalls++;
    this.costUsd += costUsd;
    paid.calls++;
    paid.usd += costUsd;
    // The dollar budget must see them, as the first process did.
    this.options.dollars?.settle(NOTHING_RESERVED, costUsd);
  }
}
