// GEPA's adapter protocol (gepa-ai/gepa's core/adapter.py): a candidate, one metric call's
// evaluation and how it failed, the records the reflection LM reads, and the Adapter a user
// writes (and the kinds of failure, each written once). src/types.ts, the public vocabulary,
// re-exports the types.

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
export const FAILURE_KINDS = ['http', 'timeout', 'connection', 'malformed', 'empty', 'refusal', 'adapter', 'invalid-score', 'context-length', 'other'] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

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
