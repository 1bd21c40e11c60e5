// Where a metric call actually runs. The evaluation service decides when (slots, cache, dollars);
// an executor decides where: in this process (localExecutor.ts) or on remote workers
// (bullmqExecutor.ts), one call at a time (`evaluate`) or one job for many (`evaluateBatch`).
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

/** One metric call of a batch: the example, its id in the run's example table, and which call of it this is. */
export interface BatchExample<Example> {
  /** The example as it is in the dataset. */
  example: Example;
  /** Its index in the run's example table. */
  exampleId: number;
  /** Which call of (candidate, example, traces) this is; a remote job id is derived from it, per example. */
  call: MetricCallIdentity;
}

/**
 * The worker slots as a batch sees them: every metric call of the batch occupies one slot while it
 * runs, through exactly one of these two. The evaluation service records what comes back per
 * example (the run's metric calls, failures, events, call records and log count each example as
 * its own call), and answers each example's evaluation as recorded: a thrown error, a missing or
 * bad answer is a failed call scoring 0, never a rejection. They reject only when the run stops
 * (aborted, or the call threw ExecutorUnavailableError) or the dollar budget refuses the calls
 * (then the calls are not made).
 */
export interface BatchSlots {
  /**
   * Fan-out: runs the call of example `index` (its place in the batch) in a slot of its own, once
   * one is free and the call is next in line.
   */
  runOne(index: number, call: () => Promise<Evaluation>): Promise<Evaluation>;
  /**
   * One job for the whole batch, or for the examples at `places` (their places in the batch, in
   * the job's order; a batch may be split into several jobs): runs `job` once, holding one slot
   * per example from its start to its end (taken together, when that many are free), and reads its
   * answer as one evaluation per example, in that order; an Error in an example's place is that
   * call failing with it, as if its `evaluate` had thrown it. Each example's dollars are reserved
   * before the job: when the dollar budget refuses one, the job is not run.
   */
  runAll(job: () => Promise<readonly unknown[]>, places?: readonly number[]): Promise<Evaluation[]>;
}

/** Where a metric call runs: in this process, or as a job on remote workers. */
export interface MetricCallExecutor<Example> {
  /** Runs one metric call (the adapter's evaluate, here or elsewhere). */
  evaluate(candidate: Candidate, example: Example, exampleId: number, ctx: EvalContext, call?: MetricCallIdentity): Promise<Evaluation>;
  /**
   * Optional: runs one candidate on several examples (a minibatch, a slice of a valset) as the
   * executor sees fit, every call in a worker slot through `slots`: one job for them all or for
   * some of them (`slots.runAll`: a batch job holds as many slots as it has examples), or a call
   * each (`slots.runOne`). A batch never has more examples than the run has worker slots; every
   * example must go through `slots` once (one that does not is a failed call). Resolves with the
   * evaluations `slots` answered, in order. Without it, each example is `evaluate`d in a slot of
   * its own (the fan-out: the local executor's way).
   */
  evaluateBatch?(candidate: Candidate, examples: readonly BatchExample<Example>[], ctx: EvalContext, slots: BatchSlots): Promise<Evaluation[]>;
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
