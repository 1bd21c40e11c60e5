// Any AI SDK language model (what `provider('model-id')` returns, for OpenAI, Anthropic, Google,
// any OpenAI-compatible server...) as the chat adapter's task model or as the reflection model.
// Each attempt is one `generateText` of the `ai` package (an optional peer, imported on first
// call) with the SDK's retries off: our attempt loop retries, on the injected clock, holding a
// worker slot only while a request is in flight, as the OpenAI-compatible models do.
import { systemClock } from '../clock.js';
import { checkInstalled, importIntegration, type OptionalIntegration } from '../peers/optionalDependency.js';
import type { LmReply, PromptPart } from '../gepa/core/languageModel.js';
import { classifyAiSdkFailure } from './aiSdkFailure.js';
import { runAttempts, type Attempt } from './attemptLoop.js';
import { MinuteRateLimiter } from './minuteRateLimiter.js';
import {
  DEFAULT_TIMEOUT_MS,
  LanguageModelError,
  positiveInteger,
  type ChatMessages,
  type LanguageModelErrorKind,
  type OpenAIChatModel,
  type OpenAILanguageModel,
  type OpenAIModelOptions,
} from './openaiLanguageModel.js';
import { costOf, priceFor, type TokenUsage } from './priceTable.js';
import { requestKey } from './responseCache.js';
import { DEFAULT_MAX_RETRIES, DEFAULT_RETRY_BASE_DELAY_MS, DEFAULT_RETRY_MAX_DELAY_MS } from './retryPolicy.js';
import { createSecretRedactor } from './secretRedactor.js';
import type { SlotAwareContext } from './slotAwareModel.js';
import { boundPromptTokens, ESTIMATE_COMPLETION_TOKENS, estimatePromptTokens, estimateTokens, messagesOf, type Message } from './tokenEstimates.js';

export const AI_SDK_MODELS: OptionalIntegration = { feature: 'AI SDK models (createAiSdkChatModel, createAiSdkLanguageModel)', packages: ['ai'] };

/**
 * An AI SDK language model as far as we read it: `provider('model-id')` of any provider fits.
 * Described by shape, so that our public types name no AI SDK package.
 */
export interface AiSdkModel {
  /** The provider's name, e.g. 'anthropic.messages'. */
  readonly provider: string;
  /** The model's id, e.g. 'claude-sonnet-4-5' (the key of `prices`). */
  readonly modelId: string;
  /** The provider specification it implements ('v2', 'v3', ...). */
  readonly specificationVersion?: string;
}

/** The OpenAI factories' options that apply to any provider (the endpoint is the provider's business). */
export type AiSdkModelOptions = Omit<OpenAIModelOptions, 'model' | 'baseURL' | 'apiKey' | 'maxTokensParam'>;

/** What names an AI SDK model in a run directory (config.json), so a run resumes without runIdentity. */
export interface NamedModel {
  /** `ai-sdk:<provider>/<model id>`, e.g. `ai-sdk:openai.chat/gpt-4.1-mini`. */
  readonly modelIdentity: string;
}

/** A reflection model over an AI SDK provider's model (createAiSdkLanguageModel). */
export type AiSdkLanguageModel = OpenAILanguageModel & NamedModel;
/** A task model over an AI SDK provider's model (createAiSdkChatModel), for createChatAdapter. */
export type AiSdkChatModel = OpenAIChatModel & NamedModel;

// The part of `ai` we call, as it is in versions 6 and 7.
interface TokenCounts {
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
}
interface AiModule {
  generateText(options: {
    model: AiSdkModel;
    system?: string;
    /** The prompt as text, or (a prompt with images) as one user message of parts. */
    prompt?: string;
    messages?: Array<{ role: 'user'; content: Array<{ type: 'text'; text: string } | { type: 'image'; image: string; mediaType: string }> }>;
    temperature?: number;
    maxOutputTokens?: number;
    maxRetries: number;
    abortSignal: AbortSignal;
  }): Promise<{ text: string; finishReason?: string; usage?: TokenCounts; totalUsage?: TokenCounts }>;
}
type GenerateTextResult = Awaited<ReturnType<AiModule['generateText']>>;

let aiModule: Promise<AiModule> | undefined;
const loadAi = (): Promise<AiModule> => {
  aiModule ??= importIntegration(AI_SDK_MODELS, () => import('ai') as Promise<unknown> as Promise<AiModule>).catch((error: unknown) => {
    aiModule = undefined;
    throw error;
  });
  return aiModule;
};

/** The tokens the SDK reported, when it reported any (`totalUsage` counts every step). */
export function usageOf(result: { usage?: TokenCounts; totalUsage?: TokenCounts }): TokenUsage | undefined {
  const counts = result.totalUsage ?? result.usage;
  if (counts?.inputTokens == null && counts?.outputTokens == null) return undefined;
  return { promptTokens: counts.inputTokens ?? 0, completionTokens: counts.outputTokens ?? 0 };
}

function checkModel(model: unknown, factory: string): AiSdkModel {
  const m = model as Partial<AiSdkModel> | null;
  if (typeof model !== 'object' || m === null || typeof m.provider !== 'string' || typeof m.modelId !== 'string' || m.modelId === '') {
    const shown = typeof model === 'string' ? JSON.stringify(model) : typeof model;
    throw new Error(`${factory} needs an AI SDK language model, what provider('model-id') returns (with provider and modelId); got ${shown}`);
  }
  return model as AiSdkModel;
}

const neverAborted = () => new AbortController().signal;

/** One request path (cache, rate limits, attempts, reply checks, dollars) behind a callable of any input shape. */
function aiSdkCallable<Input>(factory: string, rawModel: unknown, options: AiSdkModelOptions, toMessages: (input: Input, parts?: readonly PromptPart[]) => Message[]) {
  const model = checkModel(rawModel, factory);
  checkInstalled(AI_SDK_MODELS);
  for (const name of ['timeoutMs', 'maxTokens', 'rpm', 'tpm'] as const) positiveInteger(name, options[name]);
  positiveInteger('maxRetries', options.maxRetries, true);
  const { modelId, provider } = model;
  const clock = options.clock ?? systemClock;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const price = priceFor(modelId, options.prices);
  const limiter = options.rpm !== undefined || options.tpm !== undefined ? new MinuteRateLimiter(clock, options.rpm, options.tpm) : undefined;
  // The key is the provider's business: redact what looks like one, as error bodies may echo headers.
  const redact = createSecretRedactor({});
  const where = `${modelId} (${provider})`;
  const modelError = (message: string, kind: LanguageModelErrorKind, attempts: number, details: LanguageModelError['details'] = {}) =>
    new LanguageModelError(redact(`${where}: ${message}`), kind, attempts, details);

  async function attemptOnce(ai: AiModule, messages: Message[], signal: AbortSignal): Promise<Attempt<GenerateTextResult>> {
    const deadline = AbortSignal.timeout(timeoutMs);
    const system = messages.find((m) => m.role === 'system')?.content;
    const user = messages.find((m) => m.role === 'user');
    try {
      const result = await ai.generateText({
        model,
        ...(system !== undefined ? { system } : {}),
        ...(user?.parts ? { messages: [{ role: 'user' as const, content: user.parts.map((p) => (p.type === 'text' ? p : { type: 'image' as const, image: p.data, mediaType: p.mediaType })) }] } : { prompt: user?.content ?? '' }),
        ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
        ...(options.maxTokens !== undefined ? { maxOutputTokens: options.maxTokens } : {}),
        // One retry layer: ours (clock, slots, budgets). The SDK's would wait holding a worker slot.
        maxRetries: 0,
        abortSignal: AbortSignal.any([signal, deadline]),
      });
      return { ok: true, value: result };
    } catch (err) {
      return { ok: false, failure: classifyAiSdkFailure(err, deadline.aborted && !signal.aborted, timeoutMs) };
    }
  }

  async function call(messages: Message[], ctx: SlotAwareContext): Promise<LmReply> {
    const request = { api: 'ai-sdk', provider, model: modelId, messages, temperature: options.temperature, maxTokens: options.maxTokens };
    const key = requestKey(request);
    const cached = await options.cache?.get(key);
    // A cached reply reports its original usage but cost 0: nothing is paid on a re-run.
    if (cached) return { text: cached.text, ...(cached.usage ? { usage: cached.usage } : {}), costUsd: 0 };
    const ai = await loadAi();
    const { value: result, attempts, ticket } = await runAttempts(
      {
        model: modelId,
        maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
        baseDelayMs: options.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS,
        maxDelayMs: options.retryMaxDelayMs ?? DEFAULT_RETRY_MAX_DELAY_MS,
        clock,
        limiter,
        rateTokens: estimatePromptTokens(messages) + (options.maxTokens ?? 0),
        jitterKey: key,
        redact,
        giveUp: (message, kind, n, status) => modelError(message, kind, n, status === undefined ? {} : { status }),
        attempt: (signal) => attemptOnce(ai, messages, signal),
      },
      ctx,
    );
    const text = typeof result.text === 'string' ? result.text : '';
    const usage = usageOf(result);
    // A provider that reports no usage is charged by estimate, so a dollar budget stays honest.
    const billed = usage ?? { promptTokens: estimatePromptTokens(messages), completionTokens: estimateTokens(text) };
    const costUsd = price ? costOf(billed, price) : undefined;
    if (ticket) ticket.tokens = billed.promptTokens + billed.completionTokens;
    const spent = { ...(usage ? { usage } : {}), ...(costUsd !== undefined ? { costUsd } : {}) };
    if (result.finishReason === 'content-filter') throw modelError('the model refused (finish reason: content-filter)', 'refusal', attempts, spent);
    if (text.trim() === '') {
      const reason = result.finishReason ? ` (finish reason: ${result.finishReason})` : '';
      throw modelError(`empty reply${reason}`, 'empty', attempts, spent);
    }
    await options.cache?.set(key, { text, ...(usage ? { usage } : {}) }, request);
    return { text, ...spent };
  }

  const estimate = price
    ? (messages: Message[]) =>
        costOf({ promptTokens: boundPromptTokens(messages), completionTokens: options.maxTokens ?? ESTIMATE_COMPLETION_TOKENS }, price)
    : undefined;
  const callable = (input: Input, ctx: SlotAwareContext & { content?: readonly PromptPart[] } = { signal: neverAborted() }) => call(toMessages(input, ctx.content), ctx);
  return Object.assign(callable, {
    managesSlots: true as const,
    model: modelId,
    modelIdentity: `ai-sdk:${provider}/${modelId}`,
    ...(estimate ? { estimateMaxCostUsd: (input: Input, parts?: readonly PromptPart[]) => estimate(toMessages(input, parts)) } : {}),
  });
}

/**
 * An AI SDK model as a LanguageModel (prompt in, LmReply out), e.g. the `reflectionLm`. Usage
 * from the SDK's result, dollars from `prices` keyed by the model id.
 */
export function createAiSdkLanguageModel(model: AiSdkModel, options: AiSdkModelOptions = {}): AiSdkLanguageModel {
  const callable = aiSdkCallable('createAiSdkLanguageModel', model, options, (prompt: string, parts?: readonly PromptPart[]) => messagesOf(options.system, prompt, parts));
  return Object.assign(callable, { acceptsImages: true as const });
}

/** An AI SDK model as a chat model ({system, user} in, LmReply out): the chat adapter's taskModel. */
export function createAiSdkChatModel(model: AiSdkModel, options: Omit<AiSdkModelOptions, 'system'> = {}): AiSdkChatModel {
  return aiSdkCallable('createAiSdkChatModel', model, options, ({ system, user }: ChatMessages) => messagesOf(system, user));
}
