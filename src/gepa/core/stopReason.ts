// Why a run stopped: the reasons the runtime gives (OptimizeResult.stopReason, the run.ended
// event) as one union, and room for a user stopper's own string. The stoppers that give most of
// them: strategies/stoppers.ts; the decision that sets them: search/stopDecision.ts.

/**
 * Why a run stopped, as `OptimizeResult.stopReason` says it. The known reasons autocomplete; a
 * user stopper's own string is a reason too.
 * - `'done'`: nothing stopped it before the end (no stop reason was ever set).
 * - `'maxMetricCalls'`, `'maxCostUsd'`: the budget cannot pay for one more proposal (the
 *   options), or a `stoppers.maxMetricCalls` / `stoppers.maxCostUsd` stopper said so.
 * - `'timeout'`: `timeoutMs` (at once) or `stoppers.timeout` (after the work in flight).
 * - `'targetScore'`, `'perfectScore'`, `'maxStepsWithoutImprovement'`: the options of those names.
 * - `'stopped'`: the drain signal or the run directory's STOP file; `'aborted'`: the caller's signal.
 * - `'error'`: a systemic failure, a strategy hook failing again and again, or a stopper that threw.
 * - `'stopWhen'`: a user stopper returned `true`.
 * - `'file'`, `'scoreThreshold'`, `'noImprovement'`, `'signal'`, `'maxCandidates'`,
 *   `'maxProposals'`: the built-in stopper of that name (`stoppers.file`, ...).
 */
export type KnownStopReason =
  | 'done'
  | 'maxMetricCalls'
  | 'maxCostUsd'
  | 'timeout'
  | 'targetScore'
  | 'perfectScore'
  | 'maxStepsWithoutImprovement'
  | 'stopped'
  | 'aborted'
  | 'error'
  | 'stopWhen'
  | 'file'
  | 'scoreThreshold'
  | 'noImprovement'
  | 'signal'
  | 'maxCandidates'
  | 'maxProposals';

/** A known reason, or a user stopper's own string (`string & {}` keeps the known ones in autocompletion). */
export type StopReason = KnownStopReason | (string & {});
