// What a run returns (gepa-ai/gepa's core/result.py): the pool with its scores and lineage, every
// proposal with its outcome, the counters and why the run stopped. Types only (result.ts builds
// one); the root entry re-exports them.
import type { Candidate } from './adapter.js';
import type { StopReason } from './stopReason.js';
import type { HeldSlot } from '../../settingValues.js';

/** Failed calls of a run, by kind (HTTP ones as `http 404`, ...). */
export interface FailureCounts {
  /** All failed calls. */
  total: number;
  /** Failed calls per kind: `adapter`, `timeout`, `http 404`, ... */
  byKind: Record<string, number>;
  /** Of `total`, the reflection calls (absent when none failed): the rest are metric calls. */
  reflections?: number;
}

/** trackBestOutputs: per valset example, the best score in the pool and the outputs that scored it. */
export interface ValsetBestOutputs {
  /** The best score any pool candidate reached on this example. */
  score: number;
  /** Candidates (pool indices, ascending) that reached `score` and returned an output. */
  outputs: Array<{
    /** The candidate's index in the pool. */
    candidate: number;
    /** What it returned as its evaluation's `output`. */
    output: unknown;
  }>;
}

/** One proposal of the run and what became of it (result.proposals, report.html's proposal table). */
export interface ProposalRecord {
  /** Step number (batched) or proposal number (async). */
  step: number;
  /** The proposal's place in its step (batched: 0 to P x N - 1; async: 0). */
  task: number;
  /** A reflective mutation, or a merge of two candidates. */
  kind: 'reflective' | 'merge';
  /** Pool indices of the parents its child was made from (one, two for a merge). */
  parents: number[];
  /** Whether its child joined the pool. */
  outcome: 'accepted' | 'rejected' | 'skipped';
  /** Why, in words (e.g. 'accepted', 'parent is perfect on its minibatch'). */
  reason: string;
  /** Index in the pool when accepted. */
  candidateIndex?: number;
  /** The parent's score summed over the proposal's minibatch. */
  parentMinibatchSum?: number;
  /** The child's score summed over the same minibatch. */
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
  /**
   * Async with `schedule.perParent` N > 1: the proposal whose parent evaluation this one's
   * reflection read (the first of its group, which paid for it); absent on that one.
   */
  siblingOf?: number;
  /** Dollars its reflection calls cost (metric calls are shared through the cache, so not split per proposal). */
  reflectionCostUsd: number;
  /** With maxCandidateLength, when a text of its reflection was over the limit: what the rule did. */
  tooLong?: {
    /** Texts sent back to the reflection model for being over the limit (one retry each). */
    sentBack: number;
    /** A text was still over the limit after its retry (or the retry failed): the proposal was refused, its child never evaluated. */
    refused: boolean;
  };
}

/** With `holdout`: the top candidates of the front scored on the held-out selection set. */
export interface HoldoutResult {
  /** Pool indices of the candidates scored, best valset mean first. */
  candidates: number[];
  /** Their mean holdout scores, in the same order. */
  scores: number[];
  /** Their score on each holdout example. */
  subscores: number[][];
  /** Why the holdout set was not scored (the run stopped by time, dollars, a request or a failure): bestIndex is then the valset's choice. */
  skipped?: string;
}

/** What optimize() returns: the pool with its scores and lineage, the best, what was spent, why it stopped. */
export interface OptimizeResult {
  /** The pool, by index: 0 is the seed, then in the order candidates joined. */
  candidates: Candidate[];
  /** parents[i] = indices of candidate i's parents ([] for the seed). */
  parents: number[][];
  /** Mean valset score of each candidate. */
  valScores: number[];
  /** valSubscores[i][j] = score of candidate i on valset example j. */
  valSubscores: number[][];
  /**
   * Index of the best candidate: the highest mean valset score (the earliest among equals); with
   * `holdout`, the highest holdout score among the front's top candidates (see `holdout`).
   */
  bestIndex: number;
  /** candidates[bestIndex]. */
  bestCandidate: Candidate;
  /** valScores[bestIndex]: the best candidate's valset mean (with `holdout`, its holdout score is `holdoutScore`). */
  bestScore: number;
  /** With `holdout`: the best candidate's mean score on the held-out selection set (absent when it was not scored). */
  holdoutScore?: number;
  /** With `holdout`: the candidates scored on it and their scores, or why it was not scored. */
  holdout?: HoldoutResult;
  /** adapter.evaluate calls actually made (cache hits excluded). */
  metricCalls: number;
  /** Reflection LM calls made (replayed ones included on resume; a custom proposeNewTexts is not counted). */
  reflectionCalls: number;
  /** Dollars spent: metric calls and reflections with a price, and preRunCostUsd. */
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
  /**
   * The `stopWhen` stopper that stopped the run, by name (`'maxMetricCalls(200)'`, your function's
   * name), when one did: `stopReason: 'maxMetricCalls'` with it is that stopper's, without it the budget's.
   */
  stoppedBy?: string;
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
  /**
   * With maxCandidateLength, once a proposed text was over it: texts sent back to the reflection
   * model (summed over proposals), and proposals refused for a text still over it (none of their
   * children was evaluated).
   */
  tooLong?: {
    /** Texts sent back to the reflection model for being over the limit. */
    textsSentBack: number;
    /** Proposals refused for a text still over it after its retry. */
    proposalsRefused: number;
  };
  /** Schedule 'auto': every shape it chose (docs/schedules.md), in order, with its reason and when. */
  scheduleDecisions?: Array<{
    /** The shape: K in flight and the launch order's held-slot rule. */
    shape: {
      /** K, proposals in flight. */
      inFlight: number;
      /** The held-slot rule. */
      heldSlot: HeldSlot;
    };
    /** Why, in a sentence. */
    reason: string;
    /** Metric calls spent when it was decided. */
    atMetricCalls: number;
    /** Milliseconds since the run started (injected clock). */
    atElapsedMs: number;
  }>;
}

/** One choice of schedule 'auto' (a line of OptimizeResult.scheduleDecisions). */
export type ScheduleDecisionRecord = NonNullable<OptimizeResult['scheduleDecisions']>[number];
