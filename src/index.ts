/**
 * The root entry of gepa-actors (`import ... from 'gepa-actors'`): what a caller of optimize() or
 * optimizeAnything() writes against, and nothing else: the two functions, the machines to embed,
 * the stop rules, the errors a caller catches and the public vocabulary. Everything else stands
 * behind a subpath entry (src/entries/, listed in package.json "exports" and the README's "Entries").
 * No module of ours imports this file.
 *
 * @module gepa-actors
 */
export type {
  Adapter,
  CallFailure,
  Candidate,
  EvalContext,
  EvaluatedExample,
  Evaluation,
  FailureKind,
  RefinedCandidate,
  ReflectiveDataset,
  RetryNotice,
} from './gepa/core/adapter.js';
export type { ImagePart, LanguageModel, LanguageModelContext, LmReply, PromptPart } from './gepa/core/languageModel.js';
export type { Clock } from './clock.js';
export type { Schedule, StepMinibatches } from './settingValues.js';
export type { OptimizeConfig } from './config/optimizeConfig.js';
export type { FailureCounts, HoldoutResult, OptimizeResult, ProposalRecord, ValsetBestOutputs } from './gepa/core/optimizeResult.js';
export type { RunEvent } from './gepa/core/runEvent.js';
// gepa's callbacks (OptimizeConfig.callbacks); their payloads: 'gepa-actors/callbacks'.
export type { CallbackRunState, GepaCallbacks } from './gepa/core/callbacks.js';
// Strategy hooks (docs/hooks.md).
export type { PoolView, ProposeNewTexts, RandomSource, ReflectionPromptTemplate, SampleMinibatch, SelectCandidate, SelectComponents } from './gepa/strategies/hookSignatures.js';
// Stopping (docs/stopping.md): stopWhen's stop rules, what they see, why a run stopped.
export type { KnownStopReason, StopReason } from './gepa/core/stopReason.js';
export type { Stopper, StopView } from './gepa/strategies/stoppers.js';
export { stoppers } from './run/stoppers.js';
// optimize() and the machines to embed (docs/embedding.md; their message types: 'gepa-actors/embedding').
export { optimize, optimizerMachine } from '../machines/optimize.js';
export { proposerMachine } from '../machines/proposer.machine.js';
export { evaluatorActor } from '../machines/evaluator.actor.js';
// optimizeAnything: gepa's primary API (any text artifact, an evaluator, side information, log()).
export { optimizeAnything, type OptimizeAnythingResult } from '../machines/optimizeAnything.js';
export { log } from './adapters/anything/evaluatorLog.js';
export { image } from './adapters/anything/sideImage.js';
export type { BatchEvaluator, BatchEvaluatorContext, Evaluator, EvaluatorContext, EvaluatorState, OptimizeAnythingOptions, PastEvaluation, RefinerOptions } from './adapters/anything/anythingOptions.js';
export type { EvaluatorResult, SideInfo } from './adapters/anything/sideInfo.js';
// The errors a caller catches.
export { RunFailedError } from './run/runFailedError.js';
export { ConfigError } from './errors/configError.js';
export { MissingDependencyError } from './peers/optionalDependency.js';
export { RunDirectoryError } from './storage/runDirectoryError.js';
export { LanguageModelError } from './lm/openaiLanguageModel.js';
