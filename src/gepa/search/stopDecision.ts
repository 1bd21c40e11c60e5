// The one stop decision: whether the run stops, why, and whether what is in flight may finish.
// Asked once per fold (the seed's evaluation, a batched step, an async proposal), where today's
// options (targetScore, a perfect best, maxStepsWithoutImprovement) and the user's stopWhen are
// asked in that order as stoppers over a frozen StopView; and told of the stops that arrive as
// events (the caller's signal, the timeout, the drain signal or STOP file, a systemic failure),
// of the planner's refusal (the ledger cannot pay for the next proposal: the budgets) and of a
// failed seed. The optimizer machine assigns what it answers; first reason wins, an abort excepted.
import type { BudgetLedger } from '../../budget/budgetLedger.js';
import { errorMessage } from '../../errors/errorMessage.js';
import type { StopReason } from '../core/stopReason.js';
import { answerReason, optionStoppers, stopperName, type ProgressGoals, type Stopper, type StopView } from '../strategies/stoppers.js';
import type { SearchProgress } from './searchProgress.js';
import type { SearchState } from './searchState.js';

/** The stop rules of a run: the options' and the user's stoppers. */
export interface StopRules extends ProgressGoals {
  /** The user's stoppers, asked after the options' (absent: none). */
  stopWhen?: readonly Stopper[];
}

/** What the decision sets: the stop reason, with 'error' what failed, and the user's stopper that stopped the run. */
export interface StopState {
  stopReason?: StopReason;
  error?: string;
  /** The stopWhen member that stopped the run, by name (`maxMetricCalls(200)`, `quotaCheck`): its reason may be a budget's. */
  stoppedBy?: string;
}

/** What a fold's view is read from. */
export interface ViewedRun {
  search: Pick<SearchState, 'pool'>;
  progress: Pick<SearchProgress, 'bestScore' | 'stepsWithoutImprovement' | 'reflectionCalls' | 'reflectionCostUsd' | 'records'>;
  ledger: Pick<BudgetLedger, 'spentCalls'>;
  spentUsd: number;
}

/** Why the decision is asked. */
export type StopCause =
  /** A fold (the seed's evaluation, a batched step, an async proposal): the stoppers are asked. */
  | { kind: 'fold'; elapsedMs: number }
  /**
   * A stop that arrived as an event: the caller's signal ('aborted'), timeoutMs ('timeout'), the
   * drain signal or STOP file ('stopped', graceful), a systemic failure ('error', with what failed).
   */
  | { kind: 'request'; reason: StopReason; graceful: boolean; error?: string }
  /** The planner could start nothing: the ledger's refusal ('maxMetricCalls', 'maxCostUsd'), or 'error' when the hooks keep failing. */
  | { kind: 'plan'; reason?: StopReason; error?: string }
  /** The seed's evaluation failed: refused by the dollar budget ('maxCostUsd'), else an error. */
  | { kind: 'seed'; error: string; refusedByDollars: boolean }
  /** Async: nothing in flight and no reason set (the planner names its refusals: a fallback). */
  | { kind: 'idle' };

/** What the stoppers see after a fold, frozen. */
export function stopView(run: ViewedRun, elapsedMs: number): StopView {
  return Object.freeze({
    metricCalls: run.ledger.spentCalls,
    reflectionCalls: run.progress.reflectionCalls,
    proposals: run.progress.records.length,
    candidates: run.search.pool.candidates.length,
    bestScore: run.progress.bestScore,
    elapsedMs,
    costUsd: run.spentUsd,
    reflectionCostUsd: run.progress.reflectionCostUsd,
    stepsWithoutImprovement: run.progress.stepsWithoutImprovement,
  });
}

/** The first stopper that stops, asked in order; one that throws (or answers nonsense) stops the run with 'error' naming it. */
function askStoppers(view: StopView, rules: StopRules): StopState {
  for (const stopper of optionStoppers(rules)) {
    const reason = answerReason(stopper(view));
    if (reason !== null) return { stopReason: reason };
  }
  const user = rules.stopWhen ?? [];
  for (const [index, stopper] of user.entries()) {
    let answer: unknown;
    try {
      answer = stopper(view);
    } catch (error) {
      return { stopReason: 'error', error: `stopWhen[${index}] (${stopperName(stopper)}) threw: ${errorMessage(error)}` };
    }
    let reason: StopReason | null;
    try {
      reason = answerReason(answer);
    } catch (error) {
      // A bad answer was returned, not thrown: "returned 3, not a boolean or a string".
      return { stopReason: 'error', error: `stopWhen[${index}] (${stopperName(stopper)}) ${errorMessage(error)}` };
    }
    if (reason !== null) return { stopReason: reason, stoppedBy: stopperName(stopper) };
  }
  return {};
}

/**
 * The run's stop state after `cause`: unchanged to go on. `rules` are read at a fold only. A reason once set stays (a fold asks no
 * stopper then, so each is asked once per fold while the run goes on), except that a stop that
 * cannot wait (an abort, the timeout, a systemic failure, a failed seed) takes the place of a drain's.
 */
export function decideStop(run: ViewedRun & StopState, cause: StopCause, rules: StopRules = {}): StopState {
  const { stopReason, error, stoppedBy } = run;
  const kept: StopState = { stopReason, error, stoppedBy };
  switch (cause.kind) {
    case 'fold':
      if (stopReason !== undefined) return kept;
      return { ...kept, ...askStoppers(stopView(run, cause.elapsedMs), rules) };
    case 'request':
      if (cause.graceful) return { stopReason: stopReason ?? cause.reason, error };
      return { stopReason: cause.reason, error: cause.error };
    case 'plan':
      if (stopReason !== undefined || cause.reason === undefined) return kept;
      return { stopReason: cause.reason, error: cause.error };
    case 'seed':
      return cause.refusedByDollars ? { stopReason: 'maxCostUsd', error } : { stopReason: 'error', error: cause.error };
    case 'idle':
      // Nothing in flight and nothing could start: the budget, as the result has always called it.
      return { stopReason: stopReason ?? 'maxMetricCalls', error };
  }
}

/** The result's stopReason: the one set, or 'done'. */
export const finalStopReason = (run: StopState): StopReason => run.stopReason ?? 'done';
