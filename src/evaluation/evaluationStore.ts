// How the evaluation service reuses evaluations (OptimizeConfig.cacheEvaluation, resolved): shared
// within the run or not, and kept across runs in a store (the 'disk' cache; src/storage/
// implements it). Types only.
import type { Evaluation } from '../gepa/core/adapter.js';

/**
 * Evaluations kept across runs, by (candidate, example, traces?) and occurrence: the n-th traced
 * call of a pair in a run is served the n-th traced evaluation kept for it, so a later run gets at
 * most what earlier runs paid for (a run whose reflections always fail cannot loop for free).
 */
export interface EvaluationStore {
  /** The evaluation kept for this call, or undefined (then the call is made). */
  find(candidateHash: string, exampleId: number, captureTraces: boolean, occurrence: number): Evaluation | undefined;
  /** Keeps a call's evaluation (a failed call is not kept: a later run tries it again). */
  keep(candidateHash: string, exampleId: number, captureTraces: boolean, occurrence: number, evaluation: Evaluation): void;
}

/** cacheEvaluation resolved: whether evaluations are shared within the run, and the store of 'disk'. */
export interface EvaluationCachePolicy {
  /** false: every evaluation is a metric call, in-flight duplicates included (cacheEvaluation: false). */
  reuse: boolean;
  /** cacheEvaluation 'disk': evaluations earlier runs kept are served free, and this run's are kept. */
  store?: EvaluationStore;
}
