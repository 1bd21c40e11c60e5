// GEPA's adapter protocol (gepa-ai/gepa's core/adapter.py): a candidate, one metric call's
// evaluation and how it failed, the records the reflection LM reads, and the Adapter a user
// writes (and the kinds of failure, each written once). The root entry
// (src/index.ts) re-exports the types.

/** A candidate system: component name -> text. Candidate 0 is the seed. */
export type Candidate = Readonly<Record<string, string>>;

/** One metric call's outcome: the candidate run on one example. */
export interface Evaluation {
  /** Higher is better, usually in [0, 1]. */
  score: number;
  /** What the candidate produced (report.html shows it; trackBestOutputs keeps it). JSON data survives a resume. */
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
  usage?: {
    /** Tokens read (the prompt). */
    promptTokens: number;
    /** Tokens generated (the reply). */
    completionTokens: number;
  };
  /**
   * Set when the call failed (the runtime sets it for a thrown adapter error or an invalid score;
   * the chat adapter for a failed task-model call). A failed call scores 0, is counted by kind,
   * and is retried, not replayed, when a run is resumed.
   */
  failure?: CallFailure;
  /**
   * Set by the runtime with optimizeAnything's refiner: the refined candidates that scored better
   * than this one on this example, each refined from the one before it (the first from this
   * candidate), with their own evaluations. This evaluation's score stays its own candidate's;
   * where the example is the whole valset, they join the pool as candidates of their own.
   */
  refined?: RefinedCandidate[];
}

/** A candidate the refiner made from an evaluated one, and its own evaluation (Evaluation.refined). */
export interface RefinedCandidate {
  /** The refined texts. */
  candidate: Candidate;
  /** Its content hash. */
  hash: string;
  /** Its evaluation on the same example (not refined again). */
  evaluation: Evaluation;
}

/** Why a metric or LM call failed. */
export interface CallFailure {
  /** What kind of failure (counted by kind in result.failures). */
  kind: FailureKind;
  /** The HTTP status, for kind 'http'. */
  status?: number;
  /** What failed, readable (secrets redacted). */
  message: string;
}

/**
 * 'http' (an error status), 'timeout', 'connection', 'malformed' (a reply that is not a chat
 * completion), 'empty' / 'refusal' (a reply with no usable text), 'adapter' (the adapter threw),
 * 'invalid-score' (a score that is not a finite number), 'context-length' (a prompt longer than a
 * local model's context), 'other'.
 */
export const FAILURE_KINDS = ['http', 'timeout', 'connection', 'malformed', 'empty', 'refusal', 'adapter', 'invalid-score', 'context-length', 'other'] as const;
/**
 * The kind of a failed call: 'http' (an error status), 'timeout', 'connection', 'malformed' (a
 * reply that is not a chat completion), 'empty' / 'refusal' (a reply with no usable text),
 * 'adapter' (the adapter threw), 'invalid-score' (a score that is not a finite number),
 * 'context-length' (a prompt longer than a local model's context), 'other'.
 * @useDeclaredType
 */
export type FailureKind = (typeof FAILURE_KINDS)[number];

/** What a metric call is handed beside the candidate and the example. */
export interface EvalContext {
  /** True when the evaluation's `trace` will be read (the minibatches a reflection reads). */
  captureTraces: boolean;
  /** Aborted when the run stops: pass it on to the model call, so a stopped run stops it. */
  signal: AbortSignal;
  /** Pass it to a model that retries (the chat adapter does): each wait becomes a 'retry.scheduled' event. */
  onRetry?: (notice: RetryNotice) => void;
}

/** A model call that failed and will be tried again after `delayMs`. */
export interface RetryNotice {
  /** The model's name. */
  model: string;
  /** The attempt that failed (1 = the first), of at most `maxAttempts`. */
  attempt: number;
  /** The most attempts the model makes (maxRetries + 1). */
  maxAttempts: number;
  /** How long it waits before the next attempt, in ms. */
  delayMs: number;
  /** What failed, e.g. "HTTP 429: Rate limit reached". */
  reason: string;
  /** Set when the server's Retry-After asked for more than retryMaxDelayMs allows (the wait is capped). */
  requestedDelayMs?: number;
}

/** Per component, the records the reflection LM reads. */
export type ReflectiveDataset = Record<string, Array<Record<string, unknown>>>;

/** One example and its evaluation, as makeReflectiveDataset receives them. */
export interface EvaluatedExample<Example> {
  /** The example as it is in the dataset. */
  example: Example;
  /** What the metric call returned for it. */
  evaluation: Evaluation;
}

/**
 * What a user writes to optimize their system: how a candidate runs on one example and is scored
 * (gepa's GEPAAdapter). Examples are any type; the runtime never looks inside them.
 */
export interface Adapter<Example> {
  /**
   * One metric call: run `candidate` on one example. A bad example must not throw: return a
   * failure score and feedback. If it does throw, the runtime records score 0 with the error
   * message as feedback, counts the call, and goes on.
   */
  evaluate(candidate: Candidate, example: Example, ctx: EvalContext): Promise<Evaluation>;
  /**
   * Optional: one call for several examples (a minibatch, a slice of a valset; at most the run's
   * workers), answering one evaluation per example in their order. Each example is still a metric
   * call of its own; the local executor runs such a batch as one job holding a worker slot per example.
   */
  evaluateBatch?(candidate: Candidate, examples: readonly Example[], ctx: EvalContext): Promise<Evaluation[]>;
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
