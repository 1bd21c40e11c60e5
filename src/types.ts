// The public vocabulary of gepa-actors in one place: candidates, evaluations, adapters, language
// models, schedules, the optimize() config, its events and its result. Each type is defined in
// the room it belongs to and re-exported here, so that a user (and every module of ours) imports
// the vocabulary from one file. Runtime validation of user input lives in config/runSettings.ts.

// GEPA's adapter protocol: a candidate, one metric call's outcome, the Adapter a user writes.
export type { Adapter, Candidate, CallFailure, EvalContext, EvaluatedExample, Evaluation, FailureKind, ReflectiveDataset, RetryNotice } from './gepa/core/adapter.js';

// A language model: an async function from a prompt to text.
export type { ImagePart, LanguageModel, LanguageModelContext, LmReply, PromptPart } from './gepa/core/languageModel.js';

// The injected clock.
export type { Clock } from './clock.js';

// The settings: the enumerated ones with their value lists (which the config schema validates
// against, so each is written once), the schedule and the structured ones beside them.
export type { AcceptanceRule, ComponentSelectionStrategy, FrontType, HeldSlot, ParentSelectionStrategy, ParentWeighting, ProposalSelection, RebaseGate, RebasePolicy, RebaseWait, Schedule, SearchMode, SlotPolicy, Speculation, StepMinibatches, TieOrder, ValsetPolicy } from './settingValues.js';

// What optimize() takes.
export type { OptimizeConfig } from './config/optimizeConfig.js';

// The strategy hooks a user may pass, and what they are handed.
export type { PoolView, ProposeNewTexts, RandomSource, ReflectionPromptTemplate, SampleMinibatch, SelectCandidate, SelectComponents } from './gepa/strategies/hookSignatures.js';

// Durable runs: what a run asks of its journal (a run directory's log).
export type { ResumeWalk, ScheduleDecision, WorkJournal } from './gepa/core/workJournal.js';

// One stretch of work on one worker slot.
export type { SlotInterval } from './evaluation/workerSlots.js';

// How a run stops: the user's stop rules, what they see, and the reasons a result gives.
export type { KnownStopReason, StopReason } from './gepa/core/stopReason.js';
export type { Stopper, StopView } from './gepa/strategies/stoppers.js';

// What a run reports while it runs, and what it returns.
export type { RunEvent, RerunNotice } from './gepa/core/runEvent.js';
// gepa's callbacks and their payloads (every type of the module is public).
export type * from './gepa/core/callbacks.js';
export type { FailureCounts, OptimizeResult, ProposalRecord, ValsetBestOutputs } from './gepa/core/optimizeResult.js';
