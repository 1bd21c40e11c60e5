// Stop rules as stoppers (gepa's StopperProtocol): a function of a read-only view of the run that
// answers "go on" (false) or "stop" (true, or the reason as a string). The built-ins that read
// only the view live here (timeout, scores, counts, an AbortSignal, the composites), and so do the
// rules today's options make (targetScore, perfectScore, maxStepsWithoutImprovement); the stop file
// reads the disk, so it is built in src/storage/. The decision that asks them: search/stopDecision.ts.
import { describeValue } from '../../errors/describeValue.js';
import type { StopReason } from '../core/stopReason.js';

/**
 * What a stopper sees of the run when it is asked (after the seed's evaluation, after each batched
 * step, after each async proposal is folded). Plain numbers, frozen. In a resumed run the counts
 * include the work replayed from the run directory, so they describe the whole run; `elapsedMs`
 * is this process's time, as `timeoutMs` is.
 */
export interface StopView {
  /** Metric calls paid so far (cache hits excluded; replayed calls of a resumed run included). */
  readonly metricCalls: number;
  /** Reflection (or proposeNewTexts) calls of the proposals folded so far. */
  readonly reflectionCalls: number;
  /** Proposals folded so far, whatever their outcome (accepted, rejected, skipped, merges too). */
  readonly proposals: number;
  /** Candidates in the pool, the seed included. */
  readonly candidates: number;
  /** The best valset mean in the pool. */
  readonly bestScore: number;
  /** Milliseconds since this process started the run, on the run's clock. */
  readonly elapsedMs: number;
  /** Dollars of the seed's evaluation and of the proposals folded so far. */
  readonly costUsd: number;
  /** The part of costUsd the reflection (or proposeNewTexts) calls spent: gepa's max reflection cost reads this. */
  readonly reflectionCostUsd: number;
  /** Folds in a row (batched steps, or async proposals) that found no better best. */
  readonly stepsWithoutImprovement: number;
}

/**
 * A stop rule (gepa's StopperProtocol): `false` goes on, `true` stops the run with stopReason
 * `'stopWhen'`, a string stops it with that string as the stopReason. Work in flight finishes
 * first, as a drain. Asked once per fold while the run goes on; one that throws stops the run with
 * stopReason `'error'`, the result so far kept.
 */
export type Stopper = (view: StopView) => boolean | string;

/** The stopper with `name` as its function name: how errors and the run directory's record name it. */
export function namedStopper(name: string, stopper: Stopper): Stopper {
  Object.defineProperty(stopper, 'name', { value: name });
  return stopper;
}

/** A stopper's answer as a reason, or null to go on; anything but a boolean or a string is refused. */
export function answerReason(answer: unknown): StopReason | null {
  if (answer === true) return 'stopWhen';
  if (answer === false || answer === '') return null;
  if (typeof answer === 'string') return answer;
  throw new TypeError(`returned ${describeValue(answer)}, not a boolean or a string`);
}

/** How a stopper is named in errors and records: its function name (a built-in's says what it is), or 'anonymous'. */
export const stopperName = (stopper: Stopper): string => (stopper.name !== '' ? stopper.name : 'anonymous');

/** The built-ins that read only the view (`stoppers` in the package adds `file`). */
export const viewStoppers = {
  /** Stops once `ms` milliseconds have passed since this process started the run (reason `'timeout'`). */
  timeout: (ms: number): Stopper => namedStopper(`timeout(${ms})`, (view) => view.elapsedMs >= ms && 'timeout'),
  /** Stops once the best valset mean reaches `score` (reason `'scoreThreshold'`). */
  scoreThreshold: (score: number): Stopper => namedStopper(`scoreThreshold(${score})`, (view) => view.bestScore >= score && 'scoreThreshold'),
  /** Stops after `n` folds in a row (batched steps, async proposals) found no better best (reason `'noImprovement'`). */
  noImprovement: (n: number): Stopper => namedStopper(`noImprovement(${n})`, (view) => view.stepsWithoutImprovement >= n && 'noImprovement'),
  /** Stops once `abortSignal` is aborted, after the work in flight (reason `'signal'`). */
  signal: (abortSignal: AbortSignal): Stopper => namedStopper('signal', () => abortSignal.aborted && 'signal'),
  /** Stops once the pool holds `n` candidates, the seed included (reason `'maxCandidates'`). */
  maxCandidates: (n: number): Stopper => namedStopper(`maxCandidates(${n})`, (view) => view.candidates >= n && 'maxCandidates'),
  /**
   * Stops once `n` metric calls are paid (reason `'maxMetricCalls'`). A stop condition, not a
   * budget: proposals in flight finish, so the run may pass `n`; the option `maxMetricCalls` is
   * the budget that is never exceeded.
   */
  maxMetricCalls: (n: number): Stopper => namedStopper(`maxMetricCalls(${n})`, (view) => view.metricCalls >= n && 'maxMetricCalls'),
  /**
   * Stops once `usd` dollars are spent (reason `'maxCostUsd'`). A stop condition, not a budget:
   * the option `maxCostUsd` is the budget that is never exceeded.
   */
  maxCostUsd: (usd: number): Stopper => namedStopper(`maxCostUsd(${usd})`, (view) => view.costUsd >= usd && 'maxCostUsd'),
  /** Stops once `n` proposals are folded, whatever their outcome (reason `'maxProposals'`). */
  maxProposals: (n: number): Stopper => namedStopper(`maxProposals(${n})`, (view) => view.proposals >= n && 'maxProposals'),
  /** Stops when any of `stoppers` does, with the first one's reason (asked in order, until one stops). */
  any: (...stoppers: Stopper[]): Stopper =>
    namedStopper(`any(${stoppers.map((s) => stopperName(s)).join(', ')})`, (view) => {
      for (const stopper of stoppers) {
        const reason = answerReason(stopper(view));
        if (reason !== null) return reason;
      }
      return false;
    }),
  /** Stops when every one of `stoppers` does (each is asked), with their reasons joined by `' and '`. */
  all: (...stoppers: Stopper[]): Stopper =>
    namedStopper(`all(${stoppers.map((s) => stopperName(s)).join(', ')})`, (view) => {
      const reasons = stoppers.map((stopper) => answerReason(stopper(view)));
      return stoppers.length > 0 && reasons.every((r) => r !== null) && reasons.join(' and ');
    }),
};

/** The options that stop a run once a fold reaches them (the budgets are the ledger's refusal). */
export interface ProgressGoals {
  targetScore?: number;
  maxStepsWithoutImprovement?: number;
  /** With skipPerfectScore, a perfect best stops the run ('perfectScore'). */
  skipPerfectScore?: boolean;
  perfectScore?: number;
}

/**
 * The options as stoppers, in the order they are asked: targetScore, a perfect best (with
 * skipPerfectScore: every later proposal from a perfect parent would be skipped, and paying for
 * the others cannot raise the best), maxStepsWithoutImprovement.
 */
export function optionStoppers(goals: ProgressGoals): Stopper[] {
  const { targetScore, maxStepsWithoutImprovement, skipPerfectScore, perfectScore } = goals;
  const rules: Stopper[] = [];
  if (targetScore !== undefined) rules.push((view) => view.bestScore >= targetScore && 'targetScore');
  if (skipPerfectScore === true && perfectScore !== undefined) rules.push((view) => view.bestScore >= perfectScore && 'perfectScore');
  if (maxStepsWithoutImprovement !== undefined) rules.push((view) => view.stepsWithoutImprovement >= maxStepsWithoutImprovement && 'maxStepsWithoutImprovement');
  return rules;
}
