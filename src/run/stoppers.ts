// The built-in stoppers as the package exports them (`stoppers`): gepa's StopperProtocol
// built-ins under our names. Those that read only the run's view are the algorithm's
// (src/gepa/strategies/stoppers.ts); the file stopper reads the disk (src/storage/).
import { viewStoppers, type Stopper } from '../gepa/strategies/stoppers.js';
import { fileStopper } from '../storage/stopRequests.js';

/**
 * Built-in stop rules for `stopWhen` (docs/stopping.md has gepa's names beside ours). Each
 * returns a {@link Stopper} whose stopReason is its own name ('timeout', 'file', ...); the run
 * stops after the work in flight.
 */
export const stoppers: {
  /** Stops once `ms` milliseconds have passed since this process started the run, on the run's clock (reason 'timeout'). gepa: TimeoutStopCondition. */
  timeout(ms: number): Stopper;
  /** Stops once a file exists at `path` (reason 'file'); the file is left in place. gepa: FileStopper. */
  file(path: string): Stopper;
  /** Stops once the best valset mean reaches `score` (reason 'scoreThreshold'). gepa: ScoreThresholdStopper. */
  scoreThreshold(score: number): Stopper;
  /** Stops after `n` folds in a row (batched steps, async proposals) found no better best (reason 'noImprovement'). gepa: NoImprovementStopper. */
  noImprovement(n: number): Stopper;
  /** Stops once `abortSignal` is aborted, after the work in flight (reason 'signal'). gepa: SignalStopper. */
  signal(abortSignal: AbortSignal): Stopper;
  /** Stops once the pool holds `n` candidates, the seed included (reason 'maxCandidates'). gepa: MaxTrackedCandidatesStopper. */
  maxCandidates(n: number): Stopper;
  /**
   * Stops once `n` metric calls are paid (reason 'maxMetricCalls'). A stop condition, not a
   * budget: the proposals in flight finish, so the run may pass `n`; the option `maxMetricCalls`
   * is the budget that is never exceeded. gepa: MaxMetricCallsStopper.
   */
  maxMetricCalls(n: number): Stopper;
  /** Stops once the run has spent `usd` dollars (reason 'maxCostUsd'); a stop condition, not the never-exceeded budget the option `maxCostUsd` is. */
  maxCostUsd(usd: number): Stopper;
  /** Stops once `n` proposals have ended, whatever their outcome (reason 'maxProposals'). gepa: MaxCandidateProposalsStopper. */
  maxProposals(n: number): Stopper;
  /** Stops when any of `members` does, with the first one's reason. gepa: CompositeStopper(mode='any'). */
  any(...members: Stopper[]): Stopper;
  /** Stops when every one of `members` does, with their reasons joined by ' and '. gepa: CompositeStopper(mode='all'). */
  all(...members: Stopper[]): Stopper;
} = { ...viewStoppers, file: fileStopper };
