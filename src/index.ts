// The public entry of gepa-actors: the optimize() function, the optimizer machine to embed,
// the public types (src/types.ts), and the domain building blocks a user may want to reuse.
export type {
  Adapter,
  CallFailure,
  Candidate,
  Clock,
  EvalContext,
  EvaluatedExample,
  Evaluation,
  FailureCounts,
  FailureKind,
  ImagePart,
  LanguageModelContext,
  PromptPart,
  LanguageModel,
  LmReply,
  OptimizeConfig,
  OptimizeResult,
  ProposalRecord,
  ReflectiveDataset,
  RetryNotice,
  RunEvent,
  Schedule,
  // gepa's callbacks (OptimizeConfig.callbacks) and their payloads.
  GepaCallbacks,
  CallbackRunState,
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
  SearchMode,
  StepMinibatches,
  TieOrder,
  // The enumerated settings' types (docs/options.md), and a slot's stretch of work (onSlotInterval).
  AcceptanceRule,
  ComponentSelectionStrategy,
  FrontType,
  ParentSelectionStrategy,
  ParentWeighting,
  ProposalSelection,
  RebaseGate,
  RebasePolicy,
  RebaseWait,
  HeldSlot,
  Speculation,
  SlotInterval,
  SlotPolicy,
  ValsetPolicy,
  // Strategy hooks and trackBestOutputs (docs/hooks.md).
  PoolView,
  ProposeNewTexts,
  RandomSource,
  ReflectionPromptTemplate,
  SampleMinibatch,
  SelectCandidate,
  SelectComponents,
  ValsetBestOutputs,
  // Stopping (docs/stopping.md): stopWhen's stop rules, what they see, why a run stopped.
  KnownStopReason,
  Stopper,
  StopReason,
  StopView,
} from './types.js';
export { optimize, optimizerMachine } from '../machines/optimize.js';
export { stoppers } from './run/stoppers.js';
export { proposerMachine } from '../machines/proposer.machine.js';
export { evaluatorActor } from '../machines/evaluator.actor.js';
export { ConfigError } from './errors/configError.js';
export { MissingDependencyError } from './peers/optionalDependency.js';
export { Rng, type RngState } from './gepa/core/rng.js';
export { candidateHash } from './gepa/core/candidateHash.js';
export { systemClock, steppingClock, runOnSimulatedClock, type SettableClock, type SteppingClock } from './clock.js';
export { extractInstruction } from './gepa/proposer/extractInstruction.js';
export { buildReflectionPrompt, type ReflectionContext } from './gepa/proposer/reflectionPrompt.js';
export { summarizeStaleness, formatStaleness, type StalenessSummary } from './report/stalenessSummary.js';
// Durable runs (runDir): the log, its records, the stop requests an operator can make.
export type { ResumeWalk, ScheduleDecision, WorkJournal } from './types.js';
export { RunDirectoryError } from './storage/runDirectoryError.js';
export { RUN_FILES, isResumableStop } from './storage/runDirectory.js';
export { RunJournal } from './storage/runJournal.js';
export type { RunBudgets } from './storage/resumeBudgets.js';
export { readRunLog, parseRunLog, type RunLogRecord, type RunLogContents } from './storage/runLog.js';
export type { RunSnapshot, SnapshotCandidate } from './storage/runSnapshot.js';
export type { RunConfigRecord } from './storage/runConfigRecord.js';
export { installSignalHandlers, watchStopFile, STOP_FILE, type SignalHandlerOptions } from './storage/stopRequests.js';
// Examples and embedding: the offline demo task, the evaluator protocol (for a custom evaluator
// provided through optimizerMachine.provide), the runtime model, inspection records and the report.
export { createDemoTask, DEMO_SEED_PROMPT, type DemoTask, type DemoTaskOptions, type DemoExample } from './demo/demoTask.js';
// The offline optimizeAnything tasks (an evaluator with side information, a simulated reflection model).
export type { AnythingTask, SideInfoEvaluation, TaskEvaluator } from './demo/anything/anythingTask.js';
export { createServiceConfigTask } from './demo/anything/serviceConfigTask.js';
export { createRecordTask, type RecordExample } from './demo/anything/recordTask.js';
export type { EvaluatorRequest, EvaluatorReply, EvaluatorStats, ProposalUpdate, ProposerReport, ProposerDecision, ProposerInput, ReplyTo, SystemicFailure } from '../machines/protocol.js';
export type { GatePrefetch } from './gepa/search/gatePrefetch.js';
export type { EvaluatorInput } from '../machines/evaluator.actor.js';
export {
  predictWallClock,
  recommendSchedule,
  type ModelSchedule,
  type PredictParams,
  type RankedSchedule,
  type RecommendOptions,
  type ScheduleRecommendation,
  type WallClockPrediction,
  type WorkloadParams,
} from './runtimeModel/index.js';
export { createInspectionLog, parseInspectionLog, type InspectionLog, type InspectionRecord, type StateValue } from './report/inspectionLog.js';
export { renderReport, writeReport, type ReportInput, type StringArtifactResult } from './report/renderReport.js';
export { observeRun, type ModelNames, type ObservationSource, type RunObservation, type ValsetAnswer } from './report/runObserver.js';
export type { ModelRole, ModelUsage } from './report/modelUsage.js';
// Evaluations on BullMQ workers over Redis: the executor, the worker and its command.
export { createBullmqExecutor, runIdForDirectory, RedisUnavailableError, type BullmqExecutor, type BullmqExecutorOptions } from './executors/bullmqExecutor.js';
export type { MetricCallExecutor, MetricCallIdentity } from './executors/metricCallExecutor.js';
export type { RedisConnectionSpec } from './executors/redisConnection.js';
export { runWorker, type RunningWorker, type RunWorkerOptions } from './worker/runWorker.js';
export { workerCommand, WORKER_USAGE } from './worker/workerCommand.js';
// The building blocks of `gepa-actors run`: the chat adapter, the OpenAI-compatible models
// (temperature, maxTokens, rpm/tpm, timeouts, retries, prices) and the JSONL loader.
export {
  createChatAdapter,
  loadJsonlDataset,
  type ChatAdapter,
  type ChatAdapterOptions,
  type ChatExample,
  type ChatMetric,
  type ChatTaskModel,
  type JsonlDatasetOptions,
} from './adapters/chatAdapter.js';
export {
  createOpenAIChatModel,
  createOpenAILanguageModel,
  LanguageModelError,
  type ChatMessages,
  type EndpointOptions,
  type LanguageModelErrorKind,
  type OpenAIChatModel,
  type OpenAILanguageModel,
  type OpenAIModelOptions,
} from './lm/openaiLanguageModel.js';
// Local models: a GGUF file run in this process (node-llama-cpp, an optional peer).
export {
  createLocalChatModel,
  createLocalLanguageModel,
  disposeLocalModels,
  LocalModelError,
  type LocalChatModel,
  type LocalLanguageModel,
  type LocalModelErrorKind,
  type LocalModelOptions,
} from './lm/localLanguageModel.js';
export type { ModelPrice, PriceOverrides, TokenUsage } from './lm/priceTable.js';
export type { PromptTemplate } from './lm/localModelEngine.js';
export { createResponseCache, type ResponseCache, type CachedReply, type ResponseCacheStats } from './lm/responseCache.js';
// AI SDK models (the `ai` package, an optional peer): any provider's model as the chat adapter's
// task model or the reflection model, and an adapter around an app's own generateText call.
export {
  createAiSdkChatModel,
  createAiSdkLanguageModel,
  type AiSdkChatModel,
  type AiSdkLanguageModel,
  type AiSdkModel,
  type AiSdkModelOptions,
} from './lm/aiSdkLanguageModel.js';
export {
  createAiSdkAdapter,
  type AiSdkAdapter,
  type AiSdkAdapterOptions,
  type AiSdkCallResult,
  type AiSdkScore,
} from './adapters/aiSdkAdapter.js';
// optimizeAnything: gepa's primary API (any text artifact, an evaluator, side information, log()).
export { optimizeAnything, type OptimizeAnythingResult } from '../machines/optimizeAnything.js';
export { log } from './adapters/anything/evaluatorLog.js';
export { image } from './adapters/anything/sideImage.js';
export type { Evaluator, EvaluatorContext, EvaluatorState, OptimizeAnythingOptions, PastEvaluation, RefinerOptions } from './adapters/anything/anythingOptions.js';
export type { EvaluatorResult, SideInfo } from './adapters/anything/sideInfo.js';
