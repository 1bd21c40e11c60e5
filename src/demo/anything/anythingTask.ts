// The shape of the optimizeAnything bench tasks: one text artifact, an evaluator that returns a
// score with side information (as gepa's optimize_anything evaluators do), optional dataset and
// valset (none: single-task search), the objective and background a user would write, and a
// simulated reflection LM that reads the reflection prompt. Shared by the tasks in this folder.
import type { LanguageModel } from '../../gepa/core/languageModel.js';
import { latencyApplies, simulateLatency, type LatencyModel } from '../simulatedLatency.js';

/** What one evaluator call returns: a score (higher is better) and what a real harness would report. */
export interface SideInfoEvaluation {
  /** The candidate's score on the call (higher is better). */
  score: number;
  /** What the harness saw (errors, measurements, per-objective `scores`): the reflection model reads it. */
  sideInfo: Record<string, unknown>;
}

/** A task's evaluator: the candidate's text, an example (none in single-task search), the call's abort signal. */
export type TaskEvaluator<Example> = (candidate: string, example: Example | undefined, ctx: { signal?: AbortSignal }) => Promise<SideInfoEvaluation>;

/**
 * An offline optimizeAnything task: the seed text, the objective and background a user would
 * write, the data (none: single-task search), the evaluator and a simulated reflection model.
 */
export interface AnythingTask<Example> {
  /** The artifact's first text, the run's seed. */
  seedCandidate: string;
  /** What the artifact is for, as a user would write it (optimizeAnything's `objective`). */
  objective: string;
  /** Domain knowledge and constraints, as a user would write them (optimizeAnything's `background`). */
  background: string;
  /** Absent in single-task search. */
  dataset?: Example[];
  /** The examples candidates must generalize to (a generalization task); absent otherwise. */
  valset?: Example[];
  /** Held out from the run, for a generalization task's test score. */
  testset?: Example[];
  /** The task's evaluator: a score and side information per call. */
  evaluate: TaskEvaluator<Example>;
  /** A simulated reflection model that reads the reflection prompt (offline, deterministic). */
  reflectionLm: LanguageModel;
}

/** Waits the call's simulated latency (a function of `callHash`) on the clock, when there is one. */
export async function evaluatorLatency(model: LatencyModel, callHash: number, signal?: AbortSignal): Promise<void> {
  if (latencyApplies(model, signal)) await simulateLatency(model, callHash, signal);
}
