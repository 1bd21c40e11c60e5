// gepa's callbacks (gepa/core/callbacks.py, GEPACallback): one method per event of a run, each
// taking one payload object with gepa's field names, camelCased. Types only; src/run/runCallbacks.ts
// calls them from the run's events, and the package entries re-export them.
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
  /** The config's seedCandidate, as given (candidate 0 of the pool). */
  seedCandidate: Candidate;
  /** Examples in the trainset. */
  trainsetSize: number;
  /** Examples in the valset (the trainset's count when no valset is given). */
  valsetSize: number;
  /** The run's resolved settings that are plain data (seed, budgets, schedule, knobs). */
  config: Record<string, unknown>;
}

/** onOptimizationEnd: the run's result is ready. */
export interface OptimizationEndEvent {
  /** The result's bestIndex: the highest mean valset score, the earliest among equals. */
  bestCandidateIdx: number;
  /** Iterations started (batched steps, or async proposals; merges included). */
  totalIterations: number;
  /** The result's metricCalls: adapter evaluations actually made (cache hits excluded). */
  totalMetricCalls: number;
  /** The run's result (gepa hands its final GEPAState). */
  finalState: OptimizeResult;
}

/** onIterationStart: a batched step, or an async proposal, starts. */
export interface IterationStartEvent {
  /** The step number (batched run) or proposal number (async run), from 1. */
  iteration: number;
  /** A copy of the pool before the iteration's proposals (gepa passes its live GEPAState, and a trainset_loader this lacks). */
  state: CallbackRunState;
}

/** onIterationEnd: every proposal of the iteration was folded into the pool. */
export interface IterationEndEvent {
  /** The step number (batched run) or proposal number (async run), from 1. */
  iteration: number;
  /** A copy of the pool once the iteration's proposals were folded into it. */
  state: CallbackRunState;
  /** Whether a candidate of this iteration joined the pool. */
  proposalAccepted: boolean;
}

/** onCandidateSelected: a reflective proposal's parent was drawn. */
export interface CandidateSelectedEvent {
  /** The step number (batched run) or proposal number (async run), from 1. */
  iteration: number;
  /** The parent's pool index. */
  candidateIdx: number;
  /** The parent's texts. */
  candidate: Candidate;
  /** The parent's mean valset score. */
  score: number;
}

/** onMinibatchSampled: a reflective proposal's minibatch was drawn. */
export interface MinibatchSampledEvent {
  /** The step number (batched run) or proposal number (async run), from 1. */
  iteration: number;
  /** Positions in the trainset. */
  minibatchIds: number[];
  /** Examples in the trainset. */
  trainsetSize: number;
}

/** onEvaluationStart: a parent (with traces) or a child is about to be evaluated on the minibatch. */
export interface EvaluationStartEvent {
  /** The step number (batched run) or proposal number (async run), from 1. */
  iteration: number;
  /** The parent's index; null for a child, which is in no pool yet. */
  candidateIdx: number | null;
  /** Examples to evaluate: the minibatch, or a merge's valset subsample. */
  batchSize: number;
  /** true for a parent, false for a child (gepa traces a reflective child too; neither traces a merged one). */
  captureTraces: boolean;
  /** The parent's own parents (a parent evaluation); the child's parents (a child or merge evaluation). */
  parentIds: number[];
  /** The examples evaluated. */
  inputs: unknown[];
  /** true when the parent evaluated is the seed (index 0); always false for a child. */
  isSeedCandidate: boolean;
}

/** onEvaluationEnd: a minibatch evaluation came back. */
export interface EvaluationEndEvent {
  /** The step number (batched run) or proposal number (async run), from 1. */
  iteration: number;
  /** The parent's index; null for a child, which is in no pool yet. */
  candidateIdx: number | null;
  /** Each example's score, in the order evaluated. */
  scores: number[];
  /** Whether any evaluation carries a trace (only a parent's can: a child is evaluated without). */
  hasTrajectories: boolean;
  /** As onEvaluationStart's: the parent's own parents, or the child's parents. */
  parentIds: number[];
  /** Each example's output, in the order evaluated. */
  outputs: unknown[];
  /** The evaluations' traces, when the evaluation captured them. */
  trajectories: unknown[] | null;
  /** Each example's objective scores ({} where none), or null when no evaluation reported any. */
  objectiveScores: Array<Record<string, number>> | null;
  /** true when the parent evaluated is the seed (index 0); always false for a child. */
  isSeedCandidate: boolean;
}

/** onEvaluationSkipped: a proposal ended at its parent's evaluation (e.g. a perfect parent, every call failed). */
export interface EvaluationSkippedEvent {
  /** The step number (batched run) or proposal number (async run), from 1. */
  iteration: number;
  /** The parent's pool index. */
  candidateIdx: number;
  /** Why, in words (ours, not gepa's 'no_trajectories' or 'all_scores_perfect'). */
  reason: string;
  /** The parent's minibatch scores (onEvaluationEnd is not called for this evaluation, unlike gepa). */
  scores: number[] | null;
  /** Whether the parent is the seed. */
  isSeedCandidate: boolean;
}

/** onValsetEvaluated: a candidate joined the pool with its valset scores (the seed at iteration 0). */
export interface ValsetEvaluatedEvent {
  /** 0 for the seed; else the step (batched) or proposal (async) number that made the candidate. */
  iteration: number;
  /** Its pool index. */
  candidateIdx: number;
  /** Its texts. */
  candidate: Candidate;
  /** Valset position -> score. */
  scoresByValId: Record<number, number>;
  /** Its mean valset score. */
  averageScore: number;
  /** Valset examples scored: always the whole valset (every pool candidate has every valset score). */
  numExamplesEvaluated: number;
  /** Examples in the valset. */
  totalValsetSize: number;
  /** Pool indices of its parents ([] for the seed, two for a merge). */
  parentIds: number[];
  /** Whether it now has the best mean in the pool. */
  isBestProgram: boolean;
  /** Not carried by the run's events: always null. */
  outputsByValId: null;
}

/** onReflectiveDatasetBuilt: the records the reflection will read. */
export interface ReflectiveDatasetBuiltEvent {
  /** The step number (batched run) or proposal number (async run), from 1. */
  iteration: number;
  /** The parent's pool index. */
  candidateIdx: number;
  /** The components to be rewritten. */
  components: string[];
  /** The records per component, built from the parent's traced minibatch evaluation. */
  dataset: ReflectiveDataset;
}

/** onProposalStart: the reflection LM (or the user's proposeNewTexts) is asked for new texts. */
export interface ProposalStartEvent {
  /** The step number (batched run) or proposal number (async run), from 1. */
  iteration: number;
  /** The parent's texts. */
  parentCandidate: Candidate;
  /** The components to be rewritten. */
  components: string[];
  /** The same dataset onReflectiveDatasetBuilt was given. */
  reflectiveDataset: ReflectiveDataset;
}

/** onProposalEnd: new texts came back and a child was made. */
export interface ProposalEndEvent {
  /** The step number (batched run) or proposal number (async run), from 1. */
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
  /** The step number (batched run) or proposal number (async run), from 1. */
  iteration: number;
  /** The child's pool index. */
  newCandidateIdx: number;
  /** The child's minibatch sum (gepa's `new_sum`). */
  newScore: number;
  /** Pool indices of its parents (two for a merge). */
  parentIds: number[];
}

/** onCandidateRejected: a reflective child did not join the pool. */
export interface CandidateRejectedEvent {
  /** The step number (batched run) or proposal number (async run), from 1. */
  iteration: number;
  /** The parent's minibatch sum. */
  oldScore: number;
  /** The child's minibatch sum. */
  newScore: number;
  /** Why, in words (the proposal record's reason; gepa's texts differ). */
  reason: string;
}

/** onMergeAttempted: a merged child was evaluated on its subsample. */
export interface MergeAttemptedEvent {
  /** The merge's step (batched) or proposal (async) number: a merge is an iteration of its own. */
  iteration: number;
  /** The two merged candidates' pool indices. */
  parentIds: number[];
  /** The child: per component, the text of the parent that changed it from their common ancestor (both did: the better one's). */
  mergedCandidate: Candidate;
}

/** onMergeAccepted: a merged child joined the pool. */
export interface MergeAcceptedEvent {
  /** The merge's step (batched) or proposal (async) number. */
  iteration: number;
  /** The merged child's pool index. */
  newCandidateIdx: number;
  /** The two merged candidates' pool indices. */
  parentIds: number[];
}

/** onMergeRejected: a merged child did not join the pool. */
export interface MergeRejectedEvent {
  /** The merge's step (batched) or proposal (async) number. */
  iteration: number;
  /** The two merged candidates' pool indices. */
  parentIds: number[];
  /** Why, in words (the proposal record's reason; gepa's texts differ). */
  reason: string;
}

/** onParetoFrontUpdated: candidates joined the pool and the front was read again. */
export interface ParetoFrontUpdatedEvent {
  /** The iteration of the proposal folded last (async: the one that just ended, not the newest started). */
  iteration: number;
  /** The candidates on the front, ascending. */
  newFront: number[];
  /** Those on the front before and not now. */
  displacedCandidates: number[];
}

/** onStateSaved: before each iteration starts, everything before it is on disk (with a runDir, log.jsonl). */
export interface StateSavedEvent {
  /** The iteration about to start (onIterationStart follows with the same number). */
  iteration: number;
  /** The config's runDir; null without one. */
  runDir: string | null;
}

/** onBudgetUpdated: metric calls were spent. */
export interface BudgetUpdatedEvent {
  /** The newest iteration started (in an async run, the calls may be an earlier one's). */
  iteration: number;
  /** Metric calls spent so far (cache hits excluded). */
  metricCallsUsed: number;
  /** Metric calls spent since the previous onBudgetUpdated (always > 0: no call when nothing was spent). */
  metricCallsDelta: number;
  /** null without maxMetricCalls. */
  metricCallsRemaining: number | null;
}

/** onError: something failed (a metric call, a reflection, a callback). */
export interface ErrorEvent {
  /** The newest iteration started; 0 before the first (e.g. during the seed's evaluation). */
  iteration: number;
  /** A new Error carrying the run's error message (the value first thrown is not kept, nor its stack). */
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
  /** The run started, before the seed's valset evaluation. */
  onOptimizationStart(event: OptimizationStartEvent): unknown;
  /** The run's result is ready (called once, by optimize() just before it returns). */
  onOptimizationEnd(event: OptimizationEndEvent): unknown;
  /** A batched step, or an async proposal, starts (right after onStateSaved). */
  onIterationStart(event: IterationStartEvent): unknown;
  /** Every proposal of the iteration was folded into the pool. */
  onIterationEnd(event: IterationEndEvent): unknown;
  /** A reflective proposal's parent was drawn (not called for a merge, as in gepa). */
  onCandidateSelected(event: CandidateSelectedEvent): unknown;
  /** A reflective proposal's minibatch was drawn (not called for a merge). */
  onMinibatchSampled(event: MinibatchSampledEvent): unknown;
  /** A parent or a child is about to be evaluated on its minibatch (a merged child: on its valset subsample). */
  onEvaluationStart(event: EvaluationStartEvent): unknown;
  /** That evaluation came back (not for a parent whose proposal then skips: see onEvaluationSkipped). */
  onEvaluationEnd(event: EvaluationEndEvent): unknown;
  /** A proposal ended at its parent's evaluation: every call failed, or the parent is perfect. */
  onEvaluationSkipped(event: EvaluationSkippedEvent): unknown;
  /** A candidate joined the pool with its valset scores (the seed first, at iteration 0). */
  onValsetEvaluated(event: ValsetEvaluatedEvent): unknown;
  /** The reflective dataset was built and the reflection is about to be asked. */
  onReflectiveDatasetBuilt(event: ReflectiveDatasetBuiltEvent): unknown;
  /** The reflection LM (or the user's proposeNewTexts) is asked for new texts. */
  onProposalStart(event: ProposalStartEvent): unknown;
  /** New texts came back and a child was made. */
  onProposalEnd(event: ProposalEndEvent): unknown;
  /** A child joined the pool (a merged one too, after onMergeAccepted). */
  onCandidateAccepted(event: CandidateAcceptedEvent): unknown;
  /** A reflective child did not join the pool. */
  onCandidateRejected(event: CandidateRejectedEvent): unknown;
  /** A merged child was evaluated on its subsample (after its onEvaluationEnd). */
  onMergeAttempted(event: MergeAttemptedEvent): unknown;
  /** A merged child joined the pool. */
  onMergeAccepted(event: MergeAcceptedEvent): unknown;
  /** A merged child did not join the pool. */
  onMergeRejected(event: MergeRejectedEvent): unknown;
  /** Candidates joined the pool and the front was read again (not for the seed alone). */
  onParetoFrontUpdated(event: ParetoFrontUpdatedEvent): unknown;
  /** Before each iteration starts (see StateSavedEvent). */
  onStateSaved(event: StateSavedEvent): unknown;
  /** Metric calls were spent (a `budget.updated` run event with more calls than the last). */
  onBudgetUpdated(event: BudgetUpdatedEvent): unknown;
  /** An `error` run event: something failed (e.g. a metric call, a reflection, a callback). */
  onError(event: ErrorEvent): unknown;
}
