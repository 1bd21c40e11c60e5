// Which calls failed, and when failing calls mean the run cannot succeed. A failed call is
// counted by kind; a systemic failure (every call of the seed's valset failed, or so many calls
// in a row failed with one cause) is what stops a run with stopReason 'error' instead of letting
// it spend its whole budget scoring 0. The evaluation service feeds it; the machines only relay
// its verdict.
import { errorMessage } from '../errors/errorMessage.js';
import { describeValue } from '../errors/describeValue.js';
import { FAILURE_KINDS as KINDS } from '../gepa/core/adapter.js';
import { everyCallFailed } from '../gepa/core/scores.js';
import type { CallFailure, Evaluation, FailureKind } from '../gepa/core/adapter.js';
import type { FailureCounts } from '../gepa/core/optimizeResult.js';
import type { CallOutcomes } from '../gepa/search/failureRule.js';
import type { WorkKind } from './workerSlots.js';

export const DEFAULT_MAX_CONSECUTIVE_FAILURES = 10;

const FAILURE_KINDS: ReadonlySet<string> = new Set(KINDS);

/** The counting label of a failure: `http 404`, `timeout`, ... */
export function failureLabel(failure: CallFailure): string {
  return failure.kind === 'http' && failure.status !== undefined ? `http ${failure.status}` : failure.kind;
}

/**
 * A thrown error as a CallFailure: a language-model error keeps its kind and status (they carry
 * them, see LanguageModelError), anything else thrown by an adapter is 'adapter'.
 */
export function failureOf(error: unknown, fallback: FailureKind = 'adapter'): CallFailure {
  const e = error as { kind?: unknown; status?: unknown } | null;
  const kind = typeof e?.kind === 'string' && FAILURE_KINDS.has(e.kind) ? (e.kind as FailureKind) : fallback;
  return { kind, ...(typeof e?.status === 'number' ? { status: e.status } : {}), message: errorMessage(error) };
}

/** What an adapter caught and returned as a failed evaluation, by evaluation (weakly: never serialized, never kept past the run). */
const caughtErrors = new WeakMap<object, unknown>();

/** A failed evaluation an adapter made of an error it caught, remembering the error (a failed run's cause, RunFailedError). */
export function caughtFailure<E extends Evaluation>(evaluation: E, error: unknown): E {
  caughtErrors.set(evaluation, error);
  return evaluation;
}

/** What the adapter caught to make this failed evaluation (caughtFailure), if it said. */
export const caughtError = (evaluation: Evaluation): unknown => caughtErrors.get(evaluation);

/** A score the pool can hold: a finite number. */
export function invalidScoreFailure(value: unknown): CallFailure | undefined {
  const score = (value as { score?: unknown } | null | undefined)?.score;
  if (typeof score === 'number' && Number.isFinite(score)) return undefined;
  // NaN is named NaN, not JSON's null; a returned string is said to be one.
  const shown = typeof score === 'number' ? String(score) : describeValue(value, 200);
  return { kind: 'invalid-score', message: `the adapter returned an invalid evaluation (the score must be a finite number): ${shown}` };
}

/**
 * An evaluation the pool can hold: an invalid score becomes a failed call scoring 0. A worker
 * applies it before its answer becomes JSON, which would turn a NaN score into null.
 */
export function validEvaluation(value: unknown): Evaluation {
  const invalid = invalidScoreFailure(value);
  if (!invalid) return value as Evaluation;
  const cost = (value as { costUsd?: unknown } | null)?.costUsd;
  return { score: 0, feedback: `The evaluation failed: ${invalid.message}`, failure: invalid, ...(typeof cost === 'number' && cost > 0 ? { costUsd: cost } : {}) };
}

/** What two failures must share to count as the same cause: kind, status, and for adapter errors the message. */
function causeKey(failure: CallFailure): string {
  return failure.kind === 'adapter' || failure.kind === 'other' ? `${failure.kind}:${failure.message}` : failureLabel(failure);
}

/** Metric calls and reflections fail for different reasons (two models): each has its own streak. */
export type CallChannel = 'metric' | 'reflection';

export class FailureTally {
  private readonly byKind: Record<string, number> = {};
  private total = 0;
  private failedReflections = 0;
  /** The current run of failures with one cause, per channel (metric calls, reflections). */
  private readonly streaks = new Map<CallChannel, { key: string; count: number }>();
  private systemic: string | undefined;
  /** What the failure rule (gepa/search/failureRule.ts) reads at the end of the run. */
  private readonly tried = { reflections: 0, reflectionsAnswered: 0 };
  /** Proposed candidates (children, merges) by hash: whether any of their evaluations had a call that did not fail. */
  private readonly proposed = new Map<string, boolean>();
  private firstFailure: string | undefined;

  constructor(private readonly maxConsecutive: number = DEFAULT_MAX_CONSECUTIVE_FAILURES) {}

  /**
   * Records a call's outcome; returns the systemic failure's message the first time there is one.
   * `mayDeclare` false (the seed's own calls): counted, but only the seed's verdict can declare.
   */
  record(failure: CallFailure | undefined, channel: CallChannel = 'metric', mayDeclare = true): string | undefined {
    if (channel === 'reflection') {
      this.tried.reflections++;
      if (!failure) this.tried.reflectionsAnswered++;
    }
    if (!failure) {
      this.streaks.delete(channel);
      return undefined;
    }
    this.firstFailure ??= failure.message;
    const label = failureLabel(failure);
    this.byKind[label] = (this.byKind[label] ?? 0) + 1;
    this.total++;
    if (channel === 'reflection') this.failedReflections++;
    const key = causeKey(failure);
    const previous = this.streaks.get(channel);
    const streak = { key, count: previous?.key === key ? previous.count + 1 : 1 };
    this.streaks.set(channel, streak);
    if (mayDeclare && streak.count >= this.maxConsecutive) {
      const calls = channel === 'metric' ? 'metric calls' : 'reflection calls';
      return this.declare(`${streak.count} ${calls} in a row failed with the same cause: ${failure.message}`);
    }
    return undefined;
  }

  /** An evaluation asked for (not a refinement's): a proposed candidate's counts toward the failure rule. */
  recordEvaluation(kind: WorkKind, hash: string, evaluations: readonly Evaluation[]): void {
    if (kind !== 'child' && kind !== 'merge') return;
    this.proposed.set(hash, this.proposed.get(hash) === true || !everyCallFailed(evaluations));
  }

  /** The seed's valset evaluation: when every call failed (with failFast: when one did), the run has nothing to start from. */
  recordSeed(evaluations: readonly Evaluation[], failFast = false): string | undefined {
    const failed = failFast ? evaluations.find((e) => e.failure !== undefined)?.failure : undefined;
    if (failed) return this.raise(failed);
    if (!everyCallFailed(evaluations)) return undefined;
    const first = evaluations[0]?.failure as CallFailure;
    return this.declare(`every call of the seed candidate's valset evaluation failed (${evaluations.length} of ${evaluations.length}); the first: ${first.message}`);
  }

  /** failFast: the first failed call stops the run. */
  raise(failure: CallFailure): string | undefined {
    return this.declare(`failFast: ${failure.message}`);
  }

  private declare(message: string): string | undefined {
    if (this.systemic !== undefined) return undefined;
    this.systemic = message;
    return message;
  }

  counts(): FailureCounts {
    return { total: this.total, byKind: { ...this.byKind }, ...(this.failedReflections > 0 ? { reflections: this.failedReflections } : {}) };
  }

  /** The counts the failure rule reads (plain data: they travel in the evaluator's stats). */
  outcomes(): CallOutcomes {
    const proposedEvaluated = [...this.proposed.values()].filter(Boolean).length;
    return { proposedCandidates: this.proposed.size, proposedEvaluated, ...this.tried, ...(this.firstFailure !== undefined ? { firstFailure: this.firstFailure } : {}) };
  }
}

/** "3 failed calls: http 404 x2, timeout x1" ("..., 2 of them reflections" when some were); empty when none failed. */
export function formatFailureCounts(counts: FailureCounts): string {
  if (counts.total === 0) return '';
  const parts = Object.entries(counts.byKind).map(([kind, n]) => `${kind} x${n}`);
  const reflections = counts.reflections ?? 0;
  const which = reflections === 0 ? '' : reflections === counts.total ? (reflections === 1 ? ', a reflection' : ', all reflections') : `, ${reflections} of them reflection${reflections === 1 ? '' : 's'}`;
  return `${counts.total} failed call${counts.total === 1 ? '' : 's'}: ${parts.join(', ')}${which}`;
}
