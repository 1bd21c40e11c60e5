// An adapter around an app's own AI SDK call: the user's function runs their generateText (or
// generateObject) with the candidate's named texts for one example and returns the SDK's result;
// their metric scores it with feedback. We take the output, the tokens (and dollars, given
// prices), the tool calls of every step, and build the reflective dataset from them. The SDK is
// never imported here: its results are read by shape.
import type { Adapter, Candidate, EvalContext, Evaluation, ReflectiveDataset } from '../gepa/core/adapter.js';
import { classifyAiSdkFailure } from '../lm/aiSdkFailure.js';
import { usageOf } from '../lm/aiSdkLanguageModel.js';
import { costOf, priceFor, type PriceOverrides } from '../lm/priceTable.js';
import { errorMessage } from '../errors/errorMessage.js';

/** Token counts as the AI SDK reports them. */
interface TokenCounts {
  /** Prompt tokens. */
  inputTokens?: number | undefined;
  /** Completion tokens. */
  outputTokens?: number | undefined;
}

/** What we read of a generateText or generateObject result (any of its other fields may be there too). */
export interface AiSdkCallResult {
  /** generateText's text (the output when there is no `object`). */
  text?: string;
  /** generateObject's value. */
  object?: unknown;
  /** Tokens of the call (of its last step, for generateText). */
  usage?: TokenCounts;
  /** generateText's sum over steps. */
  totalUsage?: TokenCounts;
  /** generateText's steps: their tool calls go into the reflective dataset. */
  steps?: ReadonlyArray<{
    /** The tool calls the model made in the step. */
    toolCalls?: ReadonlyArray<{
      /** Pairs the call with its result. */
      toolCallId: string;
      /** The tool's name. */
      toolName: string;
      /** The arguments it was called with. */
      input?: unknown;
    }>;
    /** What the tools returned. */
    toolResults?: ReadonlyArray<{
      /** The call it answers. */
      toolCallId: string;
      /** The tool's output. */
      output?: unknown;
    }>;
  }>;
  /** The model id the provider reported: what `prices` is keyed by. */
  response?: {
    /** The model id. */
    modelId?: string;
  };
}

/** A metric's verdict: the score, and feedback the reflection model can act on. */
export interface AiSdkScore {
  /** Higher is better, usually in [0, 1]. */
  score: number;
  /** What the reflection model reads about this example. */
  feedback?: string;
  /** Optional per-objective scores (multi-objective fronts). */
  objectives?: Record<string, number>;
}

/** Options of createAiSdkAdapter. */
export interface AiSdkAdapterOptions<Example, Result extends AiSdkCallResult = AiSdkCallResult> {
  /**
   * The app's own call for one example, with the candidate's texts (e.g. `texts.system_prompt`).
   * Pass `ctx.signal` as the call's `abortSignal`, so a stopped run stops it.
   */
  call: (texts: Candidate, example: Example, ctx: { signal: AbortSignal }) => Promise<Result>;
  /** Scores one call: `output` is the result's object (generateObject) or text (generateText). */
  metric: (example: Example, output: unknown, result: Result) => AiSdkScore | number | Promise<AiSdkScore | number>;
  /** The example as the reflection model reads it (the record's Inputs). Default: a string as it is, else JSON. */
  describeInput?: (example: Example) => string;
  /** USD per million tokens by the model id the result reports; the calls' dollars count toward costUsd and maxCostUsd. */
  prices?: PriceOverrides;
  /** Worst-case dollars of one call, reserved before it under maxCostUsd; without it a call reserves nothing. */
  estimateMaxCostUsd?: (texts: Candidate, example: Example) => number;
  /** The reflective dataset quotes at most this many characters of an output or a tool call. Default 1500. */
  maxQuotedChars?: number;
}

/** An adapter around an app's own AI SDK call (createAiSdkAdapter). */
export type AiSdkAdapter<Example> = Adapter<Example> & {
  /** Worst-case dollars of one call, from the options' estimateMaxCostUsd. */
  estimateMaxCostUsd?: (candidate: Candidate, example: Example) => number;
};

/** What a reflection needs from one call beyond its output; kept as the evaluation's trace. */
interface CallTrace {
  toolCalls: string[];
  error?: string;
}

const show = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)));

function clip(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)} ... (${text.length - maxChars} more characters)`;
}

/** Each step's tool calls, with the result of the same call (by toolCallId) when there is one. */
function toolCallsOf(result: AiSdkCallResult, maxChars: number): string[] {
  return (result.steps ?? []).flatMap((step) =>
    (step.toolCalls ?? []).map((call) => {
      const answered = (step.toolResults ?? []).find((r) => r.toolCallId === call.toolCallId);
      const input = clip(show(call.input ?? {}), maxChars);
      return answered ? `${call.toolName}(${input}) -> ${clip(show(answered.output), maxChars)}` : `${call.toolName}(${input})`;
    }),
  );
}

const NO_OUTPUT = '(no output: the call failed)';

/**
 * An adapter that runs the app's own AI SDK call (generateText or generateObject, tools and all)
 * with the candidate's texts for one example, and scores its output with the app's metric; the
 * reflective dataset shows inputs, outputs, tool calls and feedback. Needs no import of `ai`.
 */
export function createAiSdkAdapter<Example, Result extends AiSdkCallResult = AiSdkCallResult>(
  options: AiSdkAdapterOptions<Example, Result>,
): AiSdkAdapter<Example> {
  const maxChars = options.maxQuotedChars ?? 1500;
  const describeInput = options.describeInput ?? show;

  async function evaluate(candidate: Candidate, example: Example, ctx: EvalContext): Promise<Evaluation> {
    let result: Result;
    try {
      result = await options.call(candidate, example, { signal: ctx.signal });
    } catch (err) {
      // Cancellation is not a score; a failed call is this example's failure, counted by kind.
      if (ctx.signal.aborted) throw err;
      const classified = classifyAiSdkFailure(err, false, 0);
      // What is not a model call's failure is the app code's: an adapter failure, as for any adapter.
      const failure = classified.kind === 'other' ? { ...classified, kind: 'adapter' as const } : classified;
      return {
        score: 0,
        feedback: `The model call failed, so there is no output to score: ${failure.message}`,
        failure: { kind: failure.kind, ...(failure.status !== undefined ? { status: failure.status } : {}), message: failure.message },
        ...(ctx.captureTraces ? { trace: { toolCalls: [], error: errorMessage(err) } satisfies CallTrace } : {}),
      };
    }
    const output = result.object !== undefined ? result.object : result.text;
    const verdict = await options.metric(example, output, result);
    const { score, feedback, objectives } = typeof verdict === 'number' ? { score: verdict, feedback: undefined, objectives: undefined } : verdict;
    const usage = usageOf(result);
    const modelId = result.response?.modelId;
    const price = modelId === undefined ? undefined : priceFor(modelId, options.prices);
    return {
      score,
      output,
      ...(feedback !== undefined ? { feedback } : {}),
      ...(objectives !== undefined ? { objectives } : {}),
      ...(usage ? { usage } : {}),
      ...(usage && price ? { costUsd: costOf(usage, price) } : {}),
      ...(ctx.captureTraces ? { trace: { toolCalls: toolCallsOf(result, maxChars) } satisfies CallTrace } : {}),
    };
  }

  function makeReflectiveDataset(
    _candidate: Candidate,
    results: ReadonlyArray<{ example: Example; evaluation: Evaluation }>,
    components: readonly string[],
  ): ReflectiveDataset {
    const records = results.map(({ example, evaluation }) => {
      const toolCalls = (evaluation.trace as CallTrace | undefined)?.toolCalls ?? [];
      return {
        Inputs: describeInput(example),
        'Generated Outputs': evaluation.output === undefined ? NO_OUTPUT : clip(show(evaluation.output), maxChars),
        ...(toolCalls.length > 0 ? { 'Tool Calls': toolCalls } : {}),
        Feedback: evaluation.feedback ?? `Score: ${evaluation.score}`,
      };
    });
    return Object.fromEntries(components.map((c) => [c, records]));
  }

  const estimate = options.estimateMaxCostUsd;
  return { evaluate, makeReflectiveDataset, ...(estimate ? { estimateMaxCostUsd: estimate } : {}) };
}
