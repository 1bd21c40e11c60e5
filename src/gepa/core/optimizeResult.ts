// What a run returns (gepa-ai/gepa's core/result.py): the pool with its scores and lineage, every
// proposal with its outcome, the counters and why the run stopped. Types only (result.ts builds
// one); src/types.ts re-exports them.
import type { Candidate } from './adapter.js';
import type { StopReason } from './stopReason.js';

/** Failed calls of a run, by kind (HTTP ones as `http 404`, ...). */
export interface FailureCounts {
  total: number;
  byKind: Record<string, number>;
}

/** trackBestOutputs: per valset example, the best score in the pool and the outputs that scored it. */
export interface ValsetBestOutputs {
  score: number;
  /** Candidates (pool indices, ascending) that reached `score` and returned an output. */
  outputs: Array<{ candidate: number; output: unknown }>;
}

/** A proposal that did not make it into the pool, kept for analysis. */
export interface ProposalRecord {
  /** Step number (batched) or proposal number (async). */
  step: number;
  task: number;
  kind: 'reflective' | 'merge';
  parents: number[];
  outcome: 'accepted' | 'rejected' | 'skipped';
  reason: string;
  /** Index in the pool when accepted. */
  candidateIndex?: number;
  parentMinibatchSum?: number;
  childMinibatchSum?: number;
  /** Pool additions between parent sampling and completion (async staleness). */
  staleness: number;
  /**
   * Async with rebasing: the parent the proposal started from, when its child's edit was rebased
   * onto a newer candidate (then `parents` holds that candidate).
   */
  rebasedFrom?: number;
  /** With `rebasedFrom`: how many minibatch examples the rebase gate judged the rebased child on (schedule.rebaseGate). */
  rebaseGateExamples?: number;
  /** Dollars its reflection calls cost (metric calls are shared through the cache, so not split per proposal). */
  reflectionCostUsd: number;
}

export interface OptimizeResult {
  candidates: Candidate[];
  /** parents[i] = indices of candidate i's parents ([] for the seed). */
  parents: number[][];
  /** Mean valset score of each candidate. */
  valScores: number[];
  /** valSubscores[i][j] = score of candidate i on valset example j. */
  valSubscores: number[][];
  bestIndex: number;
  bestCandidate: Candidate;
  bestScore: number;
  /** adapter.evaluate calls actually made (cache hits excluded). */
  metricCalls: number;
  reflectionCalls: number;
  costUsd: number;
  /** Metric calls spent when candidate i was found. */
  discoveryMetricCalls: number[];
  /** Milliseconds since the start of the run when candidate i was found (injected clock). */
  discoveryElapsedMs: number[];
  /**
   * Why the run stopped (StopReason lists them): a budget ('maxMetricCalls', 'maxCostUsd',
   * 'timeout'), 'targetScore', 'perfectScore', 'maxStepsWithoutImprovement', 'stopped' (STOP
   * file, drain signal), 'aborted', a stopper's reason ('stopWhen', a built-in's name, your own
   * string), or 'error': a systemic failure (every call of the seed's valset failed, or
   * maxConsecutiveFailures failed calls in a row with one cause, or failFast), strategy hooks
   * failing again and again, or a stopper that threw; `error` then names the cause. A run that
   * stopped with 'error' is resumable.
   */
  stopReason: StopReason;
  /** With stopReason 'error': what failed, e.g. "HTTP 404 from ...: the model `x` does not exist". */
  error?: string;
  /** Failed metric and LM calls by kind (always set by optimize(); optional for results of older versions). */
  failures?: FailureCounts;
  /** Every proposal with its outcome and reason. */
  proposals: ProposalRecord[];
  /** Wall-clock of the run on the injected clock, milliseconds. */
  elapsedMs: number;
  /** Busy slot-time / (workers x elapsed). */
  workerUtilization: number;
  /** With trackBestOutputs: per valset example (valset order), the best score and the outputs that reached it. */
  bestOutputs?: ValsetBestOutputs[];
}
