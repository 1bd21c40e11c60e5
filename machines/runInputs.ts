// What the optimizer's two invoked actors are given, read off the prepared run: the evaluator
// (slots, executor, models, the dollar budget, the journal, the listeners) and the stop-signal
// actor (the caller's signals and the timeout). Wiring only: no rule of GEPA or of the budget.
import type { PreparedRun } from '../src/run/preparedRun.js';
import type { ResumeWalk } from '../src/gepa/core/workJournal.js';
import type { EvaluatorInput } from './evaluator.actor.js';
import type { StopSignalsInput } from './stopSignals.actor.js';

/**
 * `signal`: the optimizer's own, which aborts every call in flight when the run stops early;
 * `resumeWalk`: how far the run has walked its logged path (the optimizer's state says).
 */
export function evaluatorInput(run: PreparedRun, signal: AbortSignal, resumeWalk: () => ResumeWalk): EvaluatorInput {
  const { settings } = run;
  return {
    examples: run.table.examples,
    executor: run.executor,
    reflectionLm: run.reflectionLm,
    workers: settings.workers,
    slotPolicy: settings.slotPolicy,
    clock: run.clock,
    signal,
    maxCostUsd: settings.maxCostUsd,
    onSlotInterval: run.onSlotInterval,
    journal: run.journal,
    resumeWalk,
    onEvent: run.onEvent,
    failFast: settings.failFast,
    maxConsecutiveFailures: settings.maxConsecutiveFailures,
    ...(run.onFailedCall ? { onFailedCall: run.onFailedCall } : {}),
    preRunCostUsd: run.config.preRunCostUsd,
    proposeNewTexts: run.proposeNewTexts,
    onCall: run.onCall,
    evaluationCache: run.evaluationCache,
    ...(run.refinement ? { refinement: run.refinement } : {}),
    twinsShareOneCall: settings.schedule.kind === 'batched',
  };
}

export const stopSignalsInput = (run: PreparedRun): StopSignalsInput => ({
  signal: run.signal,
  drainSignal: run.drainSignal,
  ...(run.failSignal ? { failSignal: run.failSignal } : {}),
  clock: run.clock,
  timeoutMs: run.settings.timeoutMs,
});
