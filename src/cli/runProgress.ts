// What the progress display shows, folded from the optimizer's RunEvents and slot intervals:
// metric calls and dollars spent, the best and seed scores, candidates, proposals in flight and
// worker utilization, failed calls. Plain state and arithmetic; the display decides how to draw it.
import { failureLabel } from '../evaluation/failureTally.js';
import { describeRerun } from '../report/rerunSummary.js';
import type { RunEvent } from '../gepa/core/runEvent.js';
import type { SlotInterval } from '../evaluation/workerSlots.js';

export interface ProgressBudget {
  maxMetricCalls?: number;
  maxCostUsd?: number;
  timeoutMs?: number;
}

/** Something worth a line of its own in plain output. */
export type ProgressNews =
  | { kind: 'seed'; score: number }
  | { kind: 'accepted'; index: number; parents: number[]; valScore: number; best: boolean }
  /** An error event: the first of its kind (later ones are only counted), or one that stops the run. */
  | { kind: 'error'; message: string; systemic: boolean }
  | { kind: 'warning'; message: string }
  /** A long wait before a model call's next attempt (short backoffs are not news). */
  | { kind: 'retry'; model: string; attempt: number; maxAttempts: number; delayMs: number; reason: string; requestedDelayMs?: number };

/** Waits at least this long are shown: a run that seems stuck says why. */
export const SHOWN_RETRY_MS = 5_000;

export class RunProgress {
  metricCalls = 0;
  costUsd = 0;
  bestScore: number | undefined;
  bestIndex: number | undefined;
  seedScore: number | undefined;
  candidates = 0;
  inFlight = 0;
  proposalsEnded = 0;
  busySlotMs = 0;
  /** Failed calls seen (metric calls, reflections); the systemic stop that may follow is not one. */
  errors = 0;
  private readonly errorKindsShown = new Set<string>();
  /** Metric calls finished on a slot, counted as they end (budget.updated comes per step or proposal). */
  finishedCalls = 0;

  constructor(
    readonly workers: number,
    readonly budget: ProgressBudget,
    readonly startedAt: number,
  ) {}

  apply(event: RunEvent): ProgressNews[] {
    switch (event.type) {
      case 'budget.updated':
        this.metricCalls = event.metricCalls;
        this.costUsd = event.costUsd;
        return [];
      case 'proposal.started':
        this.inFlight++;
        return [];
      case 'proposal.ended':
        this.inFlight = Math.max(0, this.inFlight - 1);
        this.proposalsEnded++;
        return [];
      case 'candidate.accepted': {
        this.candidates = Math.max(this.candidates, event.index + 1);
        const best = this.bestScore === undefined || event.valScore > this.bestScore;
        return [{ kind: 'accepted', index: event.index, parents: event.parents, valScore: event.valScore, best }];
      }
      case 'front.updated': {
        const first = this.seedScore === undefined;
        this.bestScore = event.bestScore;
        this.bestIndex = event.bestIndex;
        if (!first) return [];
        // The first front update is the seed's valset evaluation.
        this.seedScore = event.bestScore;
        this.candidates = Math.max(this.candidates, 1);
        return [{ kind: 'seed', score: event.bestScore }];
      }
      case 'warning':
        return [{ kind: 'warning', message: event.message }];
      case 'calls.rerun':
        return [{ kind: 'warning', message: describeRerun(event) }];
      case 'retry.scheduled': {
        if (event.delayMs < SHOWN_RETRY_MS && event.requestedDelayMs === undefined) return [];
        const { type: _type, ...notice } = event;
        return [{ kind: 'retry', ...notice }];
      }
      case 'error': {
        const systemic = event.systemic === true;
        // A systemic stop is news, not one more failed call: the summary's count is of calls.
        if (!systemic) this.errors++;
        // One line per kind of failure, not per call: a 404 on every call would flood the terminal.
        const kind = event.failure ? failureLabel(event.failure) : 'reflection';
        if (!systemic && this.errorKindsShown.has(kind)) return [];
        this.errorKindsShown.add(kind);
        const more = systemic ? '' : ' (further failures of this kind are counted, not shown)';
        return [{ kind: 'error', message: `${systemic ? 'stopping: ' : ''}${event.message}${more}`, systemic }];
      }
      default:
        return [];
    }
  }

  addInterval(interval: SlotInterval): void {
    this.busySlotMs += interval.end - interval.start;
    if (interval.kind !== 'reflection') this.finishedCalls++;
  }

  /**
   * The calls to show: the ledger's count, or more once calls finished since it last reported
   * (the seed's valset evaluation reports only when all of it is done). Replayed calls of a
   * resumed run hold no slot, so the ledger's count can be the larger.
   */
  shownCalls(): number {
    return Math.max(this.metricCalls, this.finishedCalls);
  }

  /** The run's result is the last word: the final bar shows exactly its calls. */
  finish(metricCalls: number): void {
    this.metricCalls = metricCalls;
    this.finishedCalls = metricCalls;
  }

  /** Busy slot-time so far over W x elapsed (finished intervals only, so it lags a little). */
  utilization(now: number): number {
    const elapsed = now - this.startedAt;
    return elapsed > 0 ? Math.min(1, this.busySlotMs / (this.workers * elapsed)) : 0;
  }

  /** How much of the tightest budget is spent, in [0, 1]; undefined when the run has none. */
  budgetFraction(now: number): number | undefined {
    const { maxMetricCalls, maxCostUsd, timeoutMs } = this.budget;
    const fractions = [
      maxMetricCalls ? this.shownCalls() / maxMetricCalls : undefined,
      maxCostUsd ? this.costUsd / maxCostUsd : undefined,
      timeoutMs ? (now - this.startedAt) / timeoutMs : undefined,
    ].filter((f): f is number => f !== undefined);
    return fractions.length > 0 ? Math.min(1, Math.max(...fractions)) : undefined;
  }
}
