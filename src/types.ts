// The public vocabulary of gepa-actors: candidates, evaluations, adapters, language models,
// schedules, the optimize() config and its result. Plain types only; runtime validation of
// user input lives in config/runSettings.ts.

/** A candidate system: component name -> text. Candidate 0 is the seed. */
export type Candidate = Readonly<Record<string, string>>;

/** One metric call's outcome: the candidate run on one example. */
export interface Evaluation {
  /** Higher is better, usually in [0, 1]. */
  score: number;
  output?: unknown;
  /** Textual feedback the reflection LM reads. */
  feedback?: string;
  /** Only needed when ctx.captureTraces is true. */
  trace?: unknown;
  /** Optional per-objective scores (multi-objective fronts). */
  objectives?: Record<string, number>;
  /** Optional: dollars this call spent (e.g. task-model tokens); counted against maxCostUsd. */
  costUsd?: number;
  /** Optional: the task model's tokens for this call (report.html's tokens per model). */
  usage?: { promptTokens: number; completionTokens: number };
  /**
   * Set when the call failed (the runtime sets it for a thrown adapter error or an invalid score;
   * the chat adapter for a failed task-model call). A failed call scores 0, is counted by kind,
   * and is retried, not replayed, when a run is resumed.
   */
  failure?: CallFailure;
}

/** Why a metric or LM call failed. */
export interface CallFailure {
  kind: FailureKind;
  /** The HTTP status, for kind 'http'. */
  status?: number;
  message: string;
}

/**
 * 'http' (an error status), 'timeout', 'connection', 'malformed' (a reply that is not a chat
 * completion), 'empty' / 'refusal' (a reply with no usable text), 'adapter' (the adapter threw),
 * 'invalid-score' (a score that is not a finite number), 'context-length' (a prompt longer than a
 * local model's context), 'other'.
 */
export type FailureKind = 'http' | 'timeout' | 'connection' | 'malformed' | 'empty' | 'refusal' | 'adapter' | 'invalid-score' | 'context-length' | 'other';

/** Failed calls of a run, by kind (HTTP ones as `http 404`, ...). */
export interface FailureCounts {
  total: number;
  byKind: Record<string, number>;
}

export interface EvalContext {
  captureTraces: boolean;
  signal: AbortSignal;
  /** Pass it to a model that retries (the chat adapter does): each wait becomes a 'retry.scheduled' event. */
  onRetry?: (notice: RetryNotice) => void;
}

/** A model call that failed and will be tried again after `delayMs`. */
export interface RetryNotice {
  model: string;
  /** The attempt that failed (1 = the first), of at most `maxAttempts`. */
  attempt: number;
  maxAttempts: number;
  delayMs: number;
  /** What failed, e.g. "HTTP 429: Rate limit reached". */
  reason: string;
  /** Set when the server's Retry-After asked for more than retryMaxDelayMs allows (the wait is capped). */
  requestedDelayMs?: number;
}

/** Per component, the records the reflection LM reads. */
export type ReflectiveDataset = Record<string, Array<Record<string, unknown>>>;

export interface EvaluatedExample<Example> {
  example: Example;
  evaluation: Evaluation;
}

export interface Adapter<Example> {
  /**
   * One metric call: run `candidate` on one example. A bad example must not throw: return a
   * failure score and feedback. If it does throw, the runtime records score 0 with the error
   * message as feedback, counts the call, and goes on.
   */
  evaluate(candidate: Candidate, example: Example, ctx: EvalContext): Promise<Evaluation>;
  /**
   * Optional: per-component records for the reflection prompt. Default: one record per example
   * with keys Inputs, Generated Outputs, Feedback.
   */
  makeReflectiveDataset?(
    candidate: Candidate,
    results: ReadonlyArray<EvaluatedExample<Example>>,
    components: readonly string[],
  ): ReflectiveDataset | Promise<ReflectiveDataset>;
}

export interface LmReply {
  text: string;
  usage?: { promptTokens: number; completionTokens: number };
  costUsd?: number;
}

/**
 * A language model is just an async function; `openai:<model>` strings build one that talks
 * to any OpenAI-compatible endpoint (OPENAI_BASE_URL, OPENAI_API_KEY), `local:<path to a .gguf>`
 * one that runs the file in this process (node-llama-cpp).
 */
export type LanguageModel = (prompt: string, ctx: { signal: AbortSignal }) => Promise<string | LmReply>;

export type Schedule =
  /** The paper's P x N; default 1 x 1 = classic GEPA. */
  | { kind: 'batched'; parents?: number; perParent?: number }
  /**
   * K proposals always in flight, no step barrier. `rebase`: what a child whose parent moved on
   * while it ran is judged as (see README, "Schedules").
   */
  | { kind: 'async'; inFlight: number; rebase?: RebasePolicy; parentWeighting?: ParentWeighting; rebaseGate?: RebaseGate; rebaseWait?: RebaseWait };

// The enumerated settings live with their value lists (settingValues.ts), which the config schema
// validates against, so each is written once.
import type { AcceptanceRule, ComponentSelectionStrategy, FrontType, ParentSelectionStrategy, ParentWeighting, RebaseGate, RebasePolicy, RebaseWait, SlotPolicy, StepMinibatches, TieOrder } from './settingValues.js';
export type { AcceptanceRule, ComponentSelectionStrategy, FrontType, ParentSelectionStrategy, ParentWeighting, RebaseGate, RebasePolicy, RebaseWait, SlotPolicy, StepMinibatches, TieOrder } from './settingValues.js';

/** Which of a step's accepted proposals go on to the valset. */
export type ProposalSelection = 'all' | 'best' | { topK: number };
/**
 * How much of the valset an accepted child is evaluated on: all of it ('full', GEPA's rule), or a
 * race in chunks of `chunk` examples that stops once the child trails its parent by more than
 * `margin` and has beaten the pool's best on none of the examples seen (it then stays out of the pool).
 */
export type ValsetPolicy = 'full' | { kind: 'race'; chunk: number; margin: number };


/**
 * The run's seeded random source, as strategy hooks receive it. Draw only from it (never
 * Math.random()) and only while the hook runs: then a batched run stays a function of its seed.
 */
export interface RandomSource {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
  /** A shuffled copy. */
  shuffle<T>(items: readonly T[]): T[];
}

/** What selectCandidate sees of the pool as it stands at the start of the step. Read-only. */
export interface PoolView {
  /** The step (batched) or proposal (async) number being planned. */
  step: number;
  candidates: readonly Candidate[];
  /** Mean valset score per candidate. */
  valScores: readonly number[];
  /** valSubscores[i][j] = score of candidate i on valset example j. */
  valSubscores: ReadonlyArray<readonly number[]>;
  parents: ReadonlyArray<readonly number[]>;
  /** Per front (a valset example for frontType 'instance'): the candidates best on it. */
  fronts: ReadonlyArray<readonly number[]>;
}

/**
 * A reflection prompt template: a string with the placeholders `<curr_instructions>` (the
 * component's current text) and `<inputs_outputs_feedback>` (its reflective records as markdown),
 * both required (gepa 0.1.4's names `<curr_param>` and `<side_info>` work too); or a function of
 * the component's name, current text and records.
 */
export type ReflectionPromptTemplate =
  | string
  | ((component: string, currentText: string, records: ReadonlyArray<Record<string, unknown>>) => string);

/** gepa's custom candidate proposer: new text per component (only components to update), in place of the reflection LM. */
export type ProposeNewTexts = (
  candidate: Candidate,
  reflectiveDataset: ReflectiveDataset,
  componentsToUpdate: readonly string[],
) => Record<string, string> | Promise<Record<string, string>>;

/** Parent selection: the index of a pool candidate. Synchronous. */
export type SelectCandidate = (pool: PoolView, rng: RandomSource) => number;

/** Which components a proposal rewrites: a non-empty list of distinct component names. Synchronous. */
export type SelectComponents = (
  input: { candidate: Candidate; candidateIndex: number; componentNames: readonly string[]; step: number; task: number },
  rng: RandomSource,
) => readonly string[];

/** A proposal's minibatch: 1 to minibatchSize trainset indices in [0, trainsetSize). Synchronous. */
export type SampleMinibatch = (input: { trainsetSize: number; minibatchSize: number; step: number; task: number }, rng: RandomSource) => readonly number[];

/** trackBestOutputs: per valset example, the best score in the pool and the outputs that scored it. */
export interface ValsetBestOutputs {
  score: number;
  /** Candidates (pool indices, ascending) that reached `score` and returned an output. */
  outputs: Array<{ candidate: number; output: unknown }>;
}

/** A clock the runtime reads and schedules on; XState's SimulatedClock fits it. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
}

export interface OptimizeConfig<Example> {
  seedCandidate: Candidate;
  trainset: readonly Example[];
  /** Default: trainset. */
  valset?: readonly Example[];
  adapter: Adapter<Example>;
  /** A function, `"openai:<model>"` or `"local:<path to a .gguf>"` (see LanguageModel). */
  reflectionLm: LanguageModel | string;
  // Stop conditions: at least one is required. Budgets are never exceeded.
  maxMetricCalls?: number;
  maxCostUsd?: number;
  timeoutMs?: number;
  /** Stop once the best valset mean reaches it. */
  targetScore?: number;
  /** Stop after this many steps (batched) or proposals (async) in a row added no better candidate. */
  maxStepsWithoutImprovement?: number;
  /** Default { kind: 'batched' } (1 x 1). */
  schedule?: Schedule;
  /** Default 8: ONE capacity budget shared by every metric call and every LM call of the run. */
  workers?: number;
  /** Default 3. */
  reflectionMinibatchSize?: number;
  /** Default 0. */
  seed?: number;
  /** Persist and resume here. */
  runDir?: string;
  /** Abort = graceful stop with a result. */
  signal?: AbortSignal;
  /** Passed to XState's createActor inspect option. */
  inspect?: (inspectionEvent: unknown) => void;
  /** Default: metric calls run in this process. */
  executor?:
    | { kind: 'local' }
    | {
        kind: 'bullmq';
        connection: string | { host: string; port: number };
        queue?: string;
        /** Tries per job before it is recorded as a failed call (score 0, the error). Default 3. */
        attempts?: number;
        /** First retry delay, doubled each retry. Default 500. */
        backoffMs?: number;
        /** Jobs waiting this long with none taken: a 'warning' event ("no worker on queue q"). Default 30,000. */
        noWorkerWarningMs?: number;
        /** Redis unreachable this long: metric calls fail, so the run stops with stopReason 'error' (resumable). Default 300,000. */
        maxRedisDownMs?: number;
      };

  // Algorithm knobs; defaults follow the reference implementation.
  frontType?: FrontType;
  /**
   * Which of two equal-mean candidates dominated removal keeps. Default 'newest-survives' (the
   * reference's order) for the batched schedule, 'oldest-survives' for async (bench/README.md,
   * "The reference bridge").
   */
  tieOrder?: TieOrder;
  /** Default 'fresh' (see bench/README.md, "The reference bridge"). */
  stepMinibatches?: StepMinibatches;
  parentSelection?: ParentSelectionStrategy;
  componentSelection?: ComponentSelectionStrategy;
  acceptance?: AcceptanceRule;
  proposalSelection?: ProposalSelection;
  /**
   * Skip a proposal whose parent is already perfect on its minibatch, and stop the run
   * (stopReason 'perfectScore') once the best valset mean reaches perfectScore. Default true.
   */
  skipPerfectScore?: boolean;
  /** Default 1. */
  perfectScore?: number;
  /** Merge (system-aware crossover): off by default. */
  merge?: { maxMerges?: number };
  /** Default 'finish-first'. */
  slotPolicy?: SlotPolicy;
  /** Default 'full'; a race's chunk defaults to 10 and its margin to 0. */
  valsetPolicy?: 'full' | { kind: 'race'; chunk?: number; margin?: number };
  /** Injected clock; default the system clock. Tests pass steppingClock(new SimulatedClock()) and run it with runOnSimulatedClock. */
  clock?: Clock;
  /** Called with every runtime event (candidate accepted, budget updated, ...). */
  onEvent?: (event: RunEvent) => void;
  /** Abort = stop gracefully: start nothing new, let what is in flight finish, return the result. */
  drainSignal?: AbortSignal;
  /** Called with every finished interval of work on a worker slot (timelines, reports). */
  onSlotInterval?: (interval: SlotInterval) => void;
  /**
   * OpenTelemetry spans (gepa.run > gepa.proposal > metric and LM calls) and metrics through
   * @opentelemetry/api's global providers: a no-op until the application registers one. Default
   * true; false creates no span and records no metric.
   */
  telemetry?: boolean;
  /**
   * Raise on the first adapter exception instead of recording it as a failed call (gepa's
   * `raise_on_exception`): the run stops with stopReason 'error'. Default false.
   */
  failFast?: boolean;
  /**
   * Dollars already spent for this run before optimize() was called (the CLI's endpoint check
   * pings servers without /models): counted in costUsd and against maxCostUsd. Default 0.
   */
  preRunCostUsd?: number;
  /**
   * A run stops with stopReason 'error' after this many failed calls in a row with the same cause
   * (e.g. HTTP 404 for a wrong model name); also when every call of the seed's valset evaluation
   * failed. Default 10.
   */
  maxConsecutiveFailures?: number;
  /**
   * Durable runs: what identifies the function-valued parts of the config (the models, the
   * adapter), recorded in runDir/config.json and compared on resume field by field (a change is
   * a ConfigError naming the field). `reflectionLm` names a function reflection model: a run whose
   * reflection model is a function without that name cannot be resumed. Values must be JSON. The
   * CLI records taskModel, reflectionModel, metric, prices, temperature, maxTokens and component.
   */
  runIdentity?: { reflectionLm?: string } & Record<string, unknown>;
  /**
   * Records completed paid work and replays it on resume. optimize() sets it from runDir; set it
   * yourself only when embedding optimizerMachine with your own storage.
   */
  journal?: WorkJournal;

  // Strategy hooks: plain functions that replace one rule of GEPA (README, "Strategy hooks").
  /** Default: the built-in prompt (buildReflectionPrompt). */
  reflectionPromptTemplate?: ReflectionPromptTemplate;
  /** Replaces the reflection LM call of each proposal; runs in a worker slot as a reflection would. */
  proposeNewTexts?: ProposeNewTexts;
  /** Replaces parentSelection. */
  selectCandidate?: SelectCandidate;
  /** Replaces componentSelection. */
  selectComponents?: SelectComponents;
  /** Replaces the epoch-shuffled minibatch sampler. */
  sampleMinibatch?: SampleMinibatch;
  /** Keep, per valset example, the outputs of the best candidates (result.bestOutputs). Default false. */
  trackBestOutputs?: boolean;
}

/**
 * Durable runs: completed paid work is recorded, and on resume replayed instead of paid again.
 * Keys are `${candidateHash}:${exampleId}:${traces ? 1 : 0}` for metric calls and the prompt for
 * reflections; a key may recur, so replays are consumed in recording order.
 */
export interface WorkJournal {
  replayEvaluation(key: string): Evaluation | undefined;
  recordEvaluation(key: string, evaluation: Evaluation): void;
  replayReflection(prompt: string): LmReply | undefined;
  recordReflection(prompt: string, reply: LmReply): void;
  /**
   * Async schedule: the next decision an earlier process took, while a resumed run walks the
   * logged path (its order is what completion order was); undefined once past it.
   */
  expectedDecision?(): ScheduleDecision | undefined;
  /** Async schedule: a decision taken (a verdict or a fold), logged once the run is past the logged path. */
  recordDecision?(decision: ScheduleDecision): void;
  /**
   * Logged work of earlier processes not replayed, once the run is past the logged path (from the
   * start in a run whose budget was raised on resume): it was paid, so it counts against the
   * budgets. Zero before.
   */
  heldWork?(): { calls: number; usd: number };
  /**
   * Metric calls earlier processes paid whose answer was a failure. Resuming tries them again, so
   * their answers are never reused; they are counted as spent from the start (metricCalls and the
   * budget), and excluded from heldWork.
   */
  failedCalls?(): number;
  /** Dollars earlier processes spent before their first call (preRunCostUsd): still part of the run's cost. */
  earlierPreRunCostUsd?(): number;
  recordPreRunCost?(costUsd: number): void;
  /** An answer of the user's proposeNewTexts that an earlier process logged for these inputs. */
  replayProposal?(candidate: Candidate, dataset: ReflectiveDataset, components: readonly string[]): { texts: unknown } | undefined;
  recordProposal?(candidate: Candidate, dataset: ReflectiveDataset, components: readonly string[], texts: unknown): void;
}

/** One decision of the async schedule, in the order the optimizer took it. */
export interface ScheduleDecision {
  kind: 'judged' | 'finished';
  /** The proposal's id (`p<step>-<task>`, `merge-<step>`): launches are a function of the decisions before them. */
  id: string;
}

/** One stretch of work on one worker slot, on the run's clock. */
export interface SlotInterval {
  slot: number;
  kind: 'valset' | 'child' | 'merge' | 'reflection' | 'parent' | 'seed';
  start: number;
  end: number;
}

/** A proposal that did not make it into the pool, kept for analysis. */
export interface ProposalRecord {
  /** Step number (batched) or proposal number (async). */
  step: number;
  task: number;
  kind: 'reflective' | 'merge';
  parents: number[];
  outcome: 'accepted' | 'rejected' | 'skipped';
  reason: string;
  /** Index in the pool when accepted. */
  candidateIndex?: number;
  parentMinibatchSum?: number;
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
  /** Dollars its reflection calls cost (metric calls are shared through the cache, so not split per proposal). */
  reflectionCostUsd: number;
}

export interface OptimizeResult {
  candidates: Candidate[];
  /** parents[i] = indices of candidate i's parents ([] for the seed). */
  parents: number[][];
  /** Mean valset score of each candidate. */
  valScores: number[];
  /** valSubscores[i][j] = score of candidate i on valset example j. */
  valSubscores: number[][];
  bestIndex: number;
  bestCandidate: Candidate;
  bestScore: number;
  /** adapter.evaluate calls actually made (cache hits excluded). */
  metricCalls: number;
  reflectionCalls: number;
  costUsd: number;
  /** Metric calls spent when candidate i was found. */
  discoveryMetricCalls: number[];
  /** Milliseconds since the start of the run when candidate i was found (injected clock). */
  discoveryElapsedMs: number[];
  /**
   * Why the run stopped: a budget ('maxMetricCalls', 'maxCostUsd', 'timeout'), 'targetScore',
   * 'maxStepsWithoutImprovement', 'stopped' (STOP file, drain signal), 'aborted', or 'error': a
   * systemic failure (every call of the seed's valset failed, or maxConsecutiveFailures failed
   * calls in a row with one cause, or failFast); `error` then names the cause. A run that
   * stopped with 'error' is resumable.
   */
  stopReason: string;
  /** With stopReason 'error': what failed, e.g. "HTTP 404 from ...: the model `x` does not exist". */
  error?: string;
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
}

/** Events the runtime reports while it runs (the reference's callbacks, as data). */
export type RunEvent =
  | { type: 'run.started'; workers: number; valsetSize: number }
  | { type: 'step.started'; step: number; tasks: number }
  | { type: 'candidate.selected'; step: number; task: number; parent: number }
  | { type: 'minibatch.sampled'; step: number; task: number; ids: number[] }
  | { type: 'evaluation.started'; step: number; task: number; target: 'parent' | 'child' | 'valset' }
  | { type: 'evaluation.ended'; step: number; task: number; target: 'parent' | 'child' | 'valset'; sum: number }
  | { type: 'evaluation.skipped'; step: number; task: number; reason: string }
  | { type: 'proposal.started'; step: number; task: number }
  /** `staleness`: pool additions between its parent's sampling and its end (ProposalRecord's). */
  | { type: 'proposal.ended'; step: number; task: number; outcome: ProposalRecord['outcome']; reason: string; staleness: number }
  | { type: 'candidate.accepted'; index: number; parents: number[]; valScore: number; candidate?: Candidate }
  | { type: 'candidate.rejected'; step: number; task: number; reason: string }
  | { type: 'front.updated'; bestIndex: number; bestScore: number; frontSize: number }
  | { type: 'budget.updated'; metricCalls: number; reserved: number; costUsd: number }
  /**
   * Something failed: a reflection, or a metric call (then `failure` says how); `systemic` when
   * it stops the run (stopReason 'error').
   */
  | { type: 'error'; message: string; failure?: CallFailure; systemic?: boolean }
  /** Something to know that is not a failure, e.g. no worker serving the BullMQ queue. */
  | { type: 'warning'; message: string }
  /** A model call will be retried after `delayMs` (a capped Retry-After says what was asked for). */
  | ({ type: 'retry.scheduled' } & RetryNotice)
  | { type: 'run.ended'; stopReason: string };
