/**
 * `gepa-actors/callbacks`: the payload of each of gepa's callback events (OptimizeConfig.callbacks,
 * docs/callbacks-and-cache.md). GepaCallbacks itself, which a caller writes against, is at the root.
 *
 * @module gepa-actors/callbacks
 */
export type {
  OptimizationStartEvent,
  OptimizationEndEvent,
  IterationStartEvent,
  IterationEndEvent,
  CandidateSelectedEvent,
  MinibatchSampledEvent,
  EvaluationStartEvent,
  EvaluationEndEvent,
  EvaluationSkippedEvent,
  ValsetEvaluatedEvent,
  ReflectiveDatasetBuiltEvent,
  ProposalStartEvent,
  ProposalEndEvent,
  CandidateAcceptedEvent,
  CandidateRejectedEvent,
  MergeAttemptedEvent,
  MergeAcceptedEvent,
  MergeRejectedEvent,
  ParetoFrontUpdatedEvent,
  StateSavedEvent,
  BudgetUpdatedEvent,
  ErrorEvent,
} from '../gepa/core/callbacks.js';
