// Where a metric call actually runs. The evaluation service decides when (slots, cache); an
// executor decides where: in this process (localExecutor.ts) or on remote workers (bullmqExecutor.ts).
// Room executors/: imported by evaluation/, worker/, run/, the machines and the command.
import type { Candidate, EvalContext, Evaluation } from '../gepa/core/adapter.js';
import type { RerunNotice } from '../gepa/core/runEvent.js';

/**
 * Which call this is: the same (candidate, example, traces) call can be made again (a fresh
 * traced run), so `occurrence` counts the earlier ones, replays from a run log included. A
 * remote executor derives stable job ids from it.
 */
export interface MetricCallIdentity {
  /** How many times this same call was made before in the run (0 the first time). */
  occurrence: number;
}

/** Where a metric call runs: in this process, or as a job on remote workers. */
export interface MetricCallExecutor<Example> {
  /** Runs one metric call (the adapter's evaluate, here or elsewhere). */
  evaluate(candidate: Candidate, example: Example, exampleId: number, ctx: EvalContext, call?: MetricCallIdentity): Promise<Evaluation>;
  /** Releases connections when the run ends. */
  close?(): Promise<void>;
  /** A remote executor's failover: calls it ran again, or gave up on, after losing their worker. Returns the unsubscribe. */
  onCallsRerun?(listener: (notice: RerunNotice) => void): () => void;
}

/**
 * Thrown by an executor that can run no call any more (e.g. its queue's Redis unreachable past
 * maxRedisDownMs): not a failed call but the end of the run, which stops with stopReason 'error'
 * naming the cause. The calls it held are not logged, so a resumed run makes them again.
 */
export class ExecutorUnavailableError extends Error {
  override name = 'ExecutorUnavailableError';
}

/** An executor whose calls have a worst-case price (e.g. a priced task model), for dollar reservations. */
export interface PricedExecutor<Example> extends MetricCallExecutor<Example> {
  estimateMaxCostUsd?: (candidate: Candidate, example: Example) => number;
}
