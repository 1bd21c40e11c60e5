// The shape of the optimizeAnything bench tasks: one text artifact, an evaluator that returns a
// score with side information (as gepa's optimize_anything evaluators do), optional dataset and
// valset (none: single-task search), the objective and background a user would write, and a
// simulated reflection LM that reads the reflection prompt. Shared by the tasks in this folder.
import type { LanguageModel } from '../../types.js';
import { latencyApplies, simulateLatency, type LatencyModel } from '../simulatedLatency.js';

/** What one evaluator call returns: a score (higher is better) and what a real harness would report. */
export interface SideInfoEvaluation {
  score: number;
  sideInfo: Record<string, unknown>;
}

/** A task's evaluator: the candidate's text, an example (none in single-task search), the call's abort signal. */
export type TaskEvaluator<Example> = (candidate: string, example: Example | undefined, ctx: { signal?: AbortSignal }) => Promise<SideInfoEvaluation>;

/**
 * An offline optimizeAnything task: the seed text, the objective and background a user would
 * write, the data (none: single-task search), the evaluator and a simulated reflection model.
 */
export interface AnythingTask<Example> {
  seedCandidate: string;
  objective: string;
  background: string;
  /** Absent in single-task search. */
  dataset?: Example[];
  valset?: Example[];
  /** Held out from the run, for a generalization task's test score. */
  testset?: Example[];
  evaluate: TaskEvaluator<Example>;
  reflectionLm: LanguageModel;
}

/** Waits the call's simulated latency (a function of `callHash`) on the clock, when there is one. */
export async function evaluatorLatency(model: LatencyModel, callHash: number, signal?: AbortSignal): Promise<void> {
  if (latencyApplies(model, signal)) await simulateLatency(model, callHash, signal);
}
