// gepa's callbacks (gepa/core/callbacks.py, GEPACallback): one method per event of a run, each
// taking one payload object with gepa's field names, camelCased. Types only; src/run/runCallbacks.ts
// calls them from the run's events, and src/types.ts re-exports them.
import type { Candidate, ReflectiveDataset } from './adapter.js';
import type { OptimizeResult } from './optimizeResult.js';

/**
 * What the run holds when a callback is called, built from the run's events: the pool so far and
 * the metric calls spent. gepa hands its whole GEPAState; this is the part a callback reads.
 */
export interface CallbackRunState {
  /** Candidates by index (the seed is 0). */
  readonly candidates: readonly Candidate[];
  /** parents[i]: candidate i's parents ([] for the seed). */
  readonly parents: readonly (readonly number[])[];
  /** valScores[i]: candidate i's mean valset score. */
  readonly valScores: readonly number[];
  /** Metric calls spent so far (cache hits excluded). */
  readonly metricCalls: number;
}

/** onOptimizationStart: the run starts, before the seed's valset evaluation. */
export interface OptimizationStartEvent {
  seedCandidate: Candidate;
  trainsetSize: number;
  valsetSize: number;
  /** The run's resolved settings that are plain data (seed, budgets, schedule, knobs). */
  config: Record<string, unknown>;
}

/** onOptimizationEnd: the run's result is ready. */
export interface OptimizationEndEvent {
  bestCandidateIdx: number;
  /** Iterations started (batched steps, or async proposals; merges included). */
  totalIterations: number;
  totalMetricCalls: number;
  /** The run's result (gepa hands its final GEPAState). */
  finalState: OptimizeResult;
}

/** onIterationStart: a batched step, or an async proposal, starts. */
export interface IterationStartEvent {
  iteration: number;
  state: CallbackRunState;
}

/** onIterationEnd: every proposal of the iteration was folded into the pool. */
export interface IterationEndEvent {
  iteration: number;
  state: CallbackRunState;
  /** Whether a candidate of this iteration joined the pool. */
  proposalAccepted: boolean;
}

/** onCandidateSelected: a reflective proposal's parent was drawn. */
export interface CandidateSelectedEvent {
  iteration: number;
  candidateIdx: number;
  candidate: Candidate;
  /** The parent's mean valset score. */
  score: number;
}

/** onMinibatchSampled: a reflective proposal's minibatch was drawn. */
export interface MinibatchSampledEvent {
  iteration: number;
  /** Positions in the trainset. */
  minibatchIds: number[];
  trainsetSize: number;
}

/** onEvaluationStart: a parent (with traces) or a child is about to be evaluated on the minibatch. */
export interface EvaluationStartEvent {
  iteration: number;
  /** The parent's index; null for a child, which is in no pool yet. */
  candidateIdx: number | null;
  batchSize: number;
  captureTraces: boolean;
  /** The parent's own parents (a parent evaluation); the child's parents (a child or merge evaluation). */
  parentIds: number[];
  /** The examples evaluated. */
  inputs: unknown[];
  isSeedCandidate: boolean;
}

/** onEvaluationEnd: a minibatch evaluation came back. */
export interface EvaluationEndEvent {
  iteration: number;
  candidateIdx: number | null;
  scores: number[];
  hasTrajectories: boolean;
  parentIds: number[];
  outputs: unknown[];
  /** The evaluations' traces, when the evaluation captured them. */
  trajectories: unknown[] | null;
  objectiveScores: Array<Record<string, number>> | null;
  isSeedCandidate: boolean;
}

/** onEvaluationSkipped: a proposal ended at its parent's evaluation (e.g. a perfect parent, every call failed). */
export interface EvaluationSkippedEvent {
  iteration: number;
  candidateIdx: number;
  reason: string;
  scores: number[] | null;
  isSeedCandidate: boolean;
}

/** onValsetEvaluated: a candidate joined the pool with its valset scores (the seed at iteration 0). */
export interface ValsetEvaluatedEvent {
  iteration: number;
  candidateIdx: number;
  candidate: Candidate;
  /** Valset position -> score. */
  scoresByValId: Record<number, number>;
  averageScore: number;
  numExamplesEvaluated: number;
  totalValsetSize: number;
  parentIds: number[];
  /** Whether it now has the best mean in the pool. */
  isBestProgram: boolean;
  /** Not carried by the run's events: always null. */
  outputsByValId: null;
}

/** onReflectiveDatasetBuilt: the records the reflection will read. */
export interface ReflectiveDatasetBuiltEvent {
  iteration: number;
  candidateIdx: number;
  components: string[];
  dataset: ReflectiveDataset;
}

/** onProposalStart: the reflection LM (or the user's proposeNewTexts) is asked for new texts. */
export interface ProposalStartEvent {
  iteration: number;
  parentCandidate: Candidate;
  components: string[];
  reflectiveDataset: ReflectiveDataset;
}

/** onProposalEnd: new texts came back and a child was made. */
export interface ProposalEndEvent {
  iteration: number;
  /** The components whose text changed, with the new text. */
  newInstructions: Record<string, string>;
  /** The prompt sent per component (empty with a custom proposeNewTexts). */
  prompts: Record<string, string>;
  /** Not carried by the run's events (the replies are read into newInstructions): always {}. */
  rawLmOutputs: Record<string, string>;
}

/** onCandidateAccepted: a child joined the pool. */
export interface CandidateAcceptedEvent {
  iteration: number;
  newCandidateIdx: number;
  /** The child's minibatch sum (gepa's `new_sum`). */
  newScore: number;
  parentIds: number[];
}

/** onCandidateRejected: a reflective child did not join the pool. */
export interface CandidateRejectedEvent {
  iteration: number;
  /** The parent's minibatch sum. */
  oldScore: number;
  /** The child's minibatch sum. */
  newScore: number;
  reason: string;
}

/** onMergeAttempted: a merged child was evaluated on its subsample. */
export interface MergeAttemptedEvent {
  iteration: number;
  parentIds: number[];
  mergedCandidate: Candidate;
}

/** onMergeAccepted: a merged child joined the pool. */
export interface MergeAcceptedEvent {
  iteration: number;
  newCandidateIdx: number;
  parentIds: number[];
}

/** onMergeRejected: a merged child did not join the pool. */
export interface MergeRejectedEvent {
  iteration: number;
  parentIds: number[];
  reason: string;
}

/** onParetoFrontUpdated: candidates joined the pool and the front was read again. */
export interface ParetoFrontUpdatedEvent {
  iteration: number;
  /** The candidates on the front, ascending. */
  newFront: number[];
  /** Those on the front before and not now. */
  displacedCandidates: number[];
}

/** onStateSaved: before each iteration starts, everything before it is on disk (with a runDir, log.jsonl). */
export interface StateSavedEvent {
  iteration: number;
  runDir: string | null;
}

/** onBudgetUpdated: metric calls were spent. */
export interface BudgetUpdatedEvent {
  iteration: number;
  metricCallsUsed: number;
  metricCallsDelta: number;
  /** null without maxMetricCalls. */
  metricCallsRemaining: number | null;
}

/** onError: something failed (a metric call, a reflection, a callback). */
export interface ErrorEvent {
  iteration: number;
  exception: Error;
  /** false when the failure stops the run (stopReason 'error'). */
  willContinue: boolean;
}

/**
 * gepa's callback protocol, camelCased: pass any subset of these methods in `callbacks`. They are
 * called synchronously as the run's events happen and must not change what they are given; one
 * that throws (or returns a promise that rejects) is reported once per method as an `error` run
 * event and never stops the run.
 */
export interface GepaCallbacks {
  onOptimizationStart(event: OptimizationStartEvent): unknown;
  onOptimizationEnd(event: OptimizationEndEvent): unknown;
  onIterationStart(event: IterationStartEvent): unknown;
  onIterationEnd(event: IterationEndEvent): unknown;
  onCandidateSelected(event: CandidateSelectedEvent): unknown;
  onMinibatchSampled(event: MinibatchSampledEvent): unknown;
  onEvaluationStart(event: EvaluationStartEvent): unknown;
  onEvaluationEnd(event: EvaluationEndEvent): unknown;
  onEvaluationSkipped(event: EvaluationSkippedEvent): unknown;
  onValsetEvaluated(event: ValsetEvaluatedEvent): unknown;
  onReflectiveDatasetBuilt(event: ReflectiveDatasetBuiltEvent): unknown;
  onProposalStart(event: ProposalStartEvent): unknown;
  onProposalEnd(event: ProposalEndEvent): unknown;
  onCandidateAccepted(event: CandidateAcceptedEvent): unknown;
  onCandidateRejected(event: CandidateRejectedEvent): unknown;
  onMergeAttempted(event: MergeAttemptedEvent): unknown;
  onMergeAccepted(event: MergeAcceptedEvent): unknown;
  onMergeRejected(event: MergeRejectedEvent): unknown;
  onParetoFrontUpdated(event: ParetoFrontUpdatedEvent): unknown;
  onStateSaved(event: StateSavedEvent): unknown;
  onBudgetUpdated(event: BudgetUpdatedEvent): unknown;
  onError(event: ErrorEvent): unknown;
}
