// Real language models over any OpenAI-compatible chat-completions endpoint: one request path
// (cache, client-side rate limits, our own retry loop with deterministic jitter, reply
// validation, dollars from the reported usage) shared by the prompt-in LanguageModel and the
// {system, user} chat model the chat adapter uses. The SDK's own retries are off so that
// every wait goes through the injected clock and each attempt holds a worker slot only while
// its HTTP request is in flight.
// Room lm/: imported by executors/ and every floor above.
import OpenAI from 'openai';
import { z } from 'zod';
import { sleep, systemClock } from '../clock.js';
import { errorMessage } from '../errors/errorMessage.js';
import type { Clock } from '../clock.js';
import type { LmReply, PromptPart } from '../gepa/core/languageModel.js';
import { costOf, priceFor, type ModelPrice, type PriceOverrides, type TokenUsage } from './priceTable.js';
import { MinuteRateLimiter } from './minuteRateLimiter.js';
import { requestKey, type ResponseCache } from './responseCache.js';
import type { ManagesSlots, SlotAwareContext } from './slotAwareModel.js';
import { createSecretRedactor, maskUrlCredentials } from './secretRedactor.js';
import {
  apiErrorMessage,
  causeOf,
  classifyFailure,
  DEFAULT_MAX_RETRIES,
  DEFAULT_RETRY_BASE_DELAY_MS,
  DEFAULT_RETRY_MAX_DELAY_MS,
  RETRYABLE_STATUS,
  retryDelayMs,
  type FailureKind,
} from './retryPolicy.js';
import { runAttempts, type Attempt } from './attemptLoop.js';
import { boundPromptTokens, ESTIMATE_COMPLETION_TOKENS, estimatePromptTokens, estimateTokens, messagesOf, type Message } from './tokenEstimates.js';

export { hasPrice } from './priceTable.js';
export { ESTIMATE_COMPLETION_TOKENS } from './tokenEstimates.js';
export {
  backoffDelayMs,
  DEFAULT_MAX_RETRIES,
  DEFAULT_RETRY_BASE_DELAY_MS,
  DEFAULT_RETRY_MAX_DELAY_MS,
  retryAfterMs,
} from './retryPolicy.js';

export const DEFAULT_TIMEOUT_MS = 120_000;
/** Sent when no key is configured and the endpoint is not OpenAI's: local servers ignore it. */
export const PLACEHOLDER_API_KEY = 'not-needed';

/** Where an OpenAI-compatible server is, and its key. */
export interface EndpointOptions {
  /** Default OPENAI_BASE_URL, else https://api.openai.com/v1. */
  baseURL?: string;
  /** Default OPENAI_API_KEY; see resolveEndpoint for key-less local servers. */
  apiKey?: string;
}

/** Options of createOpenAILanguageModel and createOpenAIChatModel. */
export interface OpenAIModelOptions extends EndpointOptions {
  /** The model's name on the server (also the key of `prices`). */
  model: string;
  /** Optional system message sent before every prompt (LanguageModel only). */
  system?: string;
  /** Sent only when set: reasoning models reject anything but their default. */
  temperature?: number;
  /** The most tokens of a reply; also bounds what a call reserves under maxCostUsd. Default: not sent. */
  maxTokens?: number;
  /**
   * The request field that carries maxTokens. Default: `max_completion_tokens` on openai.com
   * (reasoning models require it), `max_tokens` elsewhere (what compatible servers know).
   */
  maxTokensParam?: 'max_tokens' | 'max_completion_tokens';
  /** Per attempt, real time (it bounds socket I/O, so it is not on the injected clock). Default 120,000. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 6. */
  maxRetries?: number;
  /** First backoff; doubles each retry up to retryMaxDelayMs. Default 1,000. Tests pass a few ms. */
  retryBaseDelayMs?: number;
  /** The longest wait between attempts, a server's Retry-After included. Default 60,000. */
  retryMaxDelayMs?: number;
  /** Client-side limits per minute, over a sliding window on the injected clock. */
  rpm?: number;
  /** Client-side limit of tokens per minute (estimated before the call). */
  tpm?: number;
  /** Override or extend the built-in price table. */
  prices?: PriceOverrides;
  /** Every wait (backoff, rate limiting) goes through it. Default: the system clock. */
  clock?: Clock;
  /** Replies kept on disk (createResponseCache): a request seen before is answered from it, at no cost. */
  cache?: ResponseCache;
}


/** A reflection model on an OpenAI-compatible endpoint (createOpenAILanguageModel). */
export type OpenAILanguageModel = ((prompt: string, ctx?: SlotAwareContext) => Promise<LmReply>) &
  ManagesSlots & {
    /** Worst-case dollars for one call, for reservation; absent when the model is unpriced. */
    readonly estimateMaxCostUsd?: (prompt: string) => number;
  };

/** A chat task model's input: the candidate's system prompt and the example's user message. */
export interface ChatMessages {
  /** The system message. */
  system: string;
  /** The user message. */
  user: string;
}

/** A task model on an OpenAI-compatible endpoint (createOpenAIChatModel), for createChatAdapter. */
export type OpenAIChatModel = ((messages: ChatMessages, ctx?: SlotAwareContext) => Promise<LmReply>) &
  ManagesSlots & {
    /** Worst-case dollars for one call, for reservation; absent when the model is unpriced. */
    readonly estimateMaxCostUsd?: (messages: ChatMessages) => number;
  };

/** An attempt's failure kinds (see retryPolicy) plus those of a reply that arrived but is unusable. */
export type LanguageModelErrorKind = FailureKind | 'empty' | 'refusal';

/** Why a call failed; carries the dollars already spent when the server reported usage. */
export class LanguageModelError extends Error {
  /** 'LanguageModelError'. */
  override readonly name = 'LanguageModelError';
  constructor(
    message: string,
    /** What kind of failure (counted by kind in result.failures). */
    readonly kind: LanguageModelErrorKind,
    /** Attempts made before giving up. */
    readonly attempts: number,
    /** What the server reported with the failure. */
    readonly details: {
      /** The HTTP status, for kind 'http'. */
      status?: number;
      /** Tokens the server reported, when it did. */
      usage?: TokenUsage;
      /** Dollars those tokens cost: paid even though the call failed. */
      costUsd?: number;
    } = {},
  ) {
    super(message);
  }
  /** The HTTP status, for kind 'http'. */
  get status(): number | undefined {
    return this.details.status;
  }
  /** Dollars the failed call cost, when the server reported usage. */
  get costUsd(): number | undefined {
    return this.details.costUsd;
  }
}

// ---------------------------------------------------------------------------------------------
// Endpoint and key

function isOpenAIHost(baseURL: string): boolean {
  return /(^|\.)openai\.com$/i.test(new URL(baseURL).hostname);
}

const envValue = (name: string): string | undefined => process.env[name] || undefined;

/**
 * The base URL and key to use. Key: the apiKey option, else OPENAI_API_KEY, else — only for a
 * base URL that is not openai.com — a placeholder, since local servers (vLLM, Ollama,
 * llama.cpp) accept any key. openai.com without a key is a configuration error.
 */
export function resolveEndpoint(options: EndpointOptions): { baseURL: string; apiKey: string } {
  const baseURL = options.baseURL ?? envValue('OPENAI_BASE_URL') ?? 'https://api.openai.com/v1';
  if (!URL.canParse(baseURL)) throw new Error(`Invalid OpenAI base URL "${maskUrlCredentials(baseURL)}" (OPENAI_BASE_URL or baseURL)`);
  const apiKey = options.apiKey ?? envValue('OPENAI_API_KEY');
  if (apiKey) return { baseURL, apiKey };
  if (isOpenAIHost(baseURL)) {
    throw new Error(
      `No API key for ${baseURL}: set OPENAI_API_KEY (or pass apiKey). ` +
        'For a local OpenAI-compatible server, set OPENAI_BASE_URL; it needs no key.',
    );
  }
  return { baseURL, apiKey: PLACEHOLDER_API_KEY };
}

// ---------------------------------------------------------------------------------------------
// Replies

const completionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullish(), refusal: z.string().nullish() }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number() }).nullish(),
});

function preview(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

// ---------------------------------------------------------------------------------------------
// The request path

interface CompletionCaller {
  call(messages: Message[], ctx: SlotAwareContext): Promise<LmReply>;
  estimateMaxCostUsd?: (messages: Message[]) => number;
}

export function positiveInteger(name: string, value: number | undefined, allowZero = false): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < (allowZero ? 0 : 1)) {
    throw new Error(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} integer, got ${value}`);
  }
}

function createCompletionCaller(options: OpenAIModelOptions): CompletionCaller {
  const { model } = options;
  if (!model) throw new Error('An OpenAI model needs a model name');
  positiveInteger('timeoutMs', options.timeoutMs);
  positiveInteger('maxRetries', options.maxRetries, true);
  positiveInteger('maxTokens', options.maxTokens);
  positiveInteger('rpm', options.rpm);
  positiveInteger('tpm', options.tpm);

  const { baseURL, apiKey } = resolveEndpoint(options);
  // Every message of a failed call goes through it: error bodies may echo the request's headers.
  const redact = createSecretRedactor({ apiKey, baseURL });
  const where = `${model} at ${maskUrlCredentials(baseURL)}`;
  const modelError = (message: string, kind: LanguageModelErrorKind, attempts: number, details: LanguageModelError['details'] = {}) =>
    new LanguageModelError(redact(`${where}: ${message}`), kind, attempts, details);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const baseDelayMs = options.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS;
  const maxDelayMs = options.retryMaxDelayMs ?? DEFAULT_RETRY_MAX_DELAY_MS;
  const clock = options.clock ?? systemClock;
  const price: ModelPrice | undefined = priceFor(model, options.prices);
  const maxTokensParam = options.maxTokensParam ?? (isOpenAIHost(baseURL) ? 'max_completion_tokens' : 'max_tokens');
  const limiter =
    options.rpm !== undefined || options.tpm !== undefined
      ? new MinuteRateLimiter(clock, options.rpm, options.tpm)
      : undefined;
  const client = new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: timeoutMs });

  const requestBody = (messages: Message[]) => ({
    model,
    messages: messages.map(openAIMessage),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    ...(options.maxTokens !== undefined ? { [maxTokensParam]: options.maxTokens } : {}),
  });

  async function attemptOnce(body: ReturnType<typeof requestBody>, signal: AbortSignal): Promise<Attempt<unknown>> {
    // The SDK's timeout covers only the wait for headers; this deadline also covers the body.
    const deadline = AbortSignal.timeout(timeoutMs);
    try {
      // The body's messages are the chat API's (openAIMessage); its types split them by role.
      const reply: unknown = await client.chat.completions.create(body as OpenAI.ChatCompletionCreateParamsNonStreaming, {
        signal: AbortSignal.any([signal, deadline]),
        timeout: timeoutMs,
        maxRetries: 0,
      });
      return { ok: true, value: reply };
    } catch (err) {
      return { ok: false, failure: classifyFailure(err, deadline.aborted && !signal.aborted, timeoutMs) };
    }
  }

  const fetchWithRetries = (body: ReturnType<typeof requestBody>, messages: Message[], key: string, ctx: SlotAwareContext) =>
    runAttempts(
      {
        model, maxRetries, baseDelayMs, maxDelayMs, clock, limiter, redact, jitterKey: key,
        rateTokens: estimatePromptTokens(messages) + (options.maxTokens ?? 0),
        giveUp: (message, kind, attempts, status) => modelError(message, kind, attempts, status === undefined ? {} : { status }),
        attempt: (signal) => attemptOnce(body, signal),
      },
      ctx,
    );

  async function call(messages: Message[], ctx: SlotAwareContext): Promise<LmReply> {
    const body = requestBody(messages);
    const key = requestKey(body);
    const cached = await options.cache?.get(key);
    // A cached reply reports its original usage but cost 0: nothing is paid on a re-run.
    if (cached) return { text: cached.text, ...(cached.usage ? { usage: cached.usage } : {}), costUsd: 0 };

    const { value: raw, attempts, ticket } = await fetchWithRetries(body, messages, key, ctx);
    const fail = (message: string, kind: LanguageModelErrorKind, details: LanguageModelError['details'] = {}) =>
      modelError(message, kind, attempts, details);

    const parsed = completionSchema.safeParse(raw);
    if (!parsed.success) throw fail(`malformed reply body, not a chat completion: ${preview(raw)}`, 'malformed');
    const { choices, usage: rawUsage } = parsed.data;
    const choice = choices[0]!;
    const content = choice.message.content ?? '';
    const usage: TokenUsage | undefined = rawUsage
      ? { promptTokens: rawUsage.prompt_tokens, completionTokens: rawUsage.completion_tokens }
      : undefined;
    // A server that reports no usage is charged by estimate, so a dollar budget stays honest.
    const billed = usage ?? { promptTokens: estimatePromptTokens(messages), completionTokens: estimateTokens(content) };
    const costUsd = price ? costOf(billed, price) : undefined;
    if (ticket) ticket.tokens = billed.promptTokens + billed.completionTokens;
    const spent = { ...(usage ? { usage } : {}), ...(costUsd !== undefined ? { costUsd } : {}) };

    if (choice.message.refusal) throw fail(`the model refused: ${choice.message.refusal}`, 'refusal', spent);
    if (content.trim() === '') {
      const reason = choice.finish_reason ? ` (finish_reason: ${choice.finish_reason})` : '';
      throw fail(`empty reply${reason}`, 'empty', spent);
    }
    await options.cache?.set(key, { text: content, ...(usage ? { usage } : {}) }, body);
    return { text: content, ...spent };
  }

  const estimateMaxCostUsd = price
    ? (messages: Message[]) =>
        costOf(
          {
            promptTokens: boundPromptTokens(messages),
            completionTokens: options.maxTokens ?? ESTIMATE_COMPLETION_TOKENS,
          },
          price,
        )
    : undefined;
  return { call, ...(estimateMaxCostUsd ? { estimateMaxCostUsd } : {}) };
}

const neverAborted = () => new AbortController().signal;

/** A message in the chat API's form: text, or text and image parts (images as data URLs). */
function openAIMessage(message: Message): { role: Message['role']; content: string | Array<{ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } }> } {
  if (!message.parts) return { role: message.role, content: message.content };
  const content = message.parts.map((p) => (p.type === 'text' ? p : { type: 'image_url' as const, image_url: { url: `data:${p.mediaType};base64,${p.data}` } }));
  return { role: message.role, content };
}

/** One request path behind a callable of any input shape, marked and priced for the runtime. */
function callableModel<Input>(options: OpenAIModelOptions, toMessages: (input: Input, parts?: readonly PromptPart[]) => Message[]) {
  const caller = createCompletionCaller(options);
  const model = (input: Input, ctx: SlotAwareContext & { content?: readonly PromptPart[] } = { signal: neverAborted() }) =>
    caller.call(toMessages(input, ctx.content), ctx);
  const estimate = caller.estimateMaxCostUsd;
  return Object.assign(model, {
    managesSlots: true as const,
    model: options.model,
    ...(estimate ? { estimateMaxCostUsd: (input: Input, parts?: readonly PromptPart[]) => estimate(toMessages(input, parts)) } : {}),
  });
}

/** A LanguageModel (prompt in, LmReply out) on an OpenAI-compatible endpoint. */
export function createOpenAILanguageModel(options: OpenAIModelOptions): OpenAILanguageModel {
  return Object.assign(
    callableModel(options, (prompt: string, parts?: readonly PromptPart[]) => messagesOf(options.system, prompt, parts)),
    { acceptsImages: true as const },
  );
}

/** A chat model ({system, user} in, LmReply out) for task adapters; same request path. */
export function createOpenAIChatModel(options: Omit<OpenAIModelOptions, 'system'>): OpenAIChatModel {
  return callableModel(options, ({ system, user }: ChatMessages) => messagesOf(system, user));
}

// ---------------------------------------------------------------------------------------------
// Preflight

export interface EndpointCheck {
  /** As fit to print: credentials in it masked. */
  baseURL: string;
  /** What the one-token ping cost (servers without /models, priced models only): part of the run's cost. */
  costUsd?: number;
  /** Model ids the server lists (first page), when it has a /models route. */
  models?: string[];
  modelListed?: boolean;
}

/**
 * Fails fast, with a message a user can act on, when the key is missing, the endpoint is
 * unreachable or rejects the key. Asks GET /models (free); servers without that route get a
 * one-token chat request for `model` instead.
 */
export interface EndpointCheckOptions extends EndpointOptions {
  model?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  prices?: PriceOverrides;
  /** Retries of a 429, 408, 409 or 5xx answer, as every call has them. Default 6. */
  maxRetries?: number;
  retryBaseDelayMs?: number;
  /** Caps the server's Retry-After too. Default 60,000. */
  retryMaxDelayMs?: number;
  /** Every wait goes through it. Default: the system clock. */
  clock?: Clock;
  /** Told before each wait, so that a user sees why nothing happens yet. */
  onRetry?: (retry: { attempt: number; maxAttempts: number; delayMs: number; reason: string }) => void;
}

/** Connection failures that no wait will cure: nothing listens there, the name does not resolve, the URL is refused. */
const HOPELESS_CONNECTION = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EAI_NONAME|bad port|credentials/;

/**
 * Runs one request of the check, retrying what every call retries (429, 408, 409, 5xx, a
 * timeout, a dropped connection) under the same rules: backoff or Retry-After (capped), a
 * bounded number of tries, then the last failure. A refused connection or an unknown host is
 * not retried: it is a wrong OPENAI_BASE_URL or a server that is not running, and the user
 * should hear so at once.
 */
async function withCheckRetries<T>(options: EndpointCheckOptions, key: string, request: () => Promise<T>): Promise<T> {
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  positiveInteger('maxRetries', maxRetries, true);
  for (let attempt = 1; ; attempt++) {
    try {
      return await request();
    } catch (err) {
      const failure = classifyFailure(err, false, options.timeoutMs ?? 0);
      const hopeless = failure.kind === 'connection' && HOPELESS_CONNECTION.test(failure.message);
      if (!failure.retryable || hopeless || attempt > maxRetries || options.signal?.aborted) throw err;
      const delayMs = retryDelayMs(failure, attempt, key, options.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS, options.retryMaxDelayMs ?? DEFAULT_RETRY_MAX_DELAY_MS);
      options.onRetry?.({ attempt, maxAttempts: maxRetries + 1, delayMs, reason: failure.message });
      await sleep(options.clock ?? systemClock, delayMs, options.signal ?? neverAborted());
    }
  }
}

export async function checkEndpoint(options: EndpointCheckOptions): Promise<EndpointCheck> {
  const { baseURL: rawURL, apiKey } = resolveEndpoint(options);
  const redact = createSecretRedactor({ apiKey, baseURL: rawURL });
  const baseURL = maskUrlCredentials(rawURL);
  const timeout = options.timeoutMs ?? 15_000;
  positiveInteger('timeoutMs', timeout);
  const client = new OpenAI({ baseURL: rawURL, apiKey, maxRetries: 0, timeout });
  const request = { maxRetries: 0, timeout, ...(options.signal ? { signal: options.signal } : {}) };
  const retrying = { ...options, onRetry: options.onRetry && ((retry: Parameters<NonNullable<EndpointCheckOptions['onRetry']>>[0]) => options.onRetry?.({ ...retry, reason: redact(retry.reason) })) };
  const hasCredentials = (() => {
    const url = new URL(rawURL);
    return url.username !== '' || url.password !== '';
  })();

  const describe = (err: unknown): Error => {
    if (err instanceof OpenAI.APIConnectionTimeoutError) {
      const retries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
      return new Error(`The OpenAI-compatible endpoint at ${baseURL} did not answer within ${timeout} ms${retries > 0 ? `, ${retries + 1} times` : ''}`);
    }
    if (err instanceof OpenAI.APIConnectionError && hasCredentials) {
      // fetch refuses a URL with user:password@ before anything is sent.
      return new Error(
        `OPENAI_BASE_URL ${baseURL} carries a user name or password, which requests cannot send in the URL (${causeOf(err)}); ` +
          'remove it from the URL and put the key in OPENAI_API_KEY',
      );
    }
    if (err instanceof OpenAI.APIConnectionError) {
      return new Error(
        `Cannot reach the OpenAI-compatible endpoint at ${baseURL} (${causeOf(err)}); ` +
          'check OPENAI_BASE_URL and that the server is running',
      );
    }
    if (err instanceof OpenAI.APIError && (err.status === 401 || err.status === 403)) {
      return new Error(
        `The endpoint at ${baseURL} rejected the API key (HTTP ${err.status}: ${apiErrorMessage(err)}); check OPENAI_API_KEY`,
      );
    }
    if (err instanceof OpenAI.APIError && typeof err.status === 'number') {
      const retries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
      const tried = RETRYABLE_STATUS(err.status) && retries > 0 ? ` (still, after ${retries + 1} attempts)` : '';
      return new Error(`The endpoint at ${baseURL} answered HTTP ${err.status}${tried}: ${apiErrorMessage(err)}`);
    }
    return err instanceof Error ? err : new Error(String(err));
  };
  // An error body may echo the request's headers: the message is redacted before it leaves.
  const explain = (err: unknown): Error => new Error(redact(errorMessage(describe(err))));

  try {
    const page = await withCheckRetries(retrying, 'models', () => client.models.list(request));
    const models = page.data.map((m) => m.id);
    return { baseURL, models, ...(options.model ? { modelListed: models.includes(options.model) } : {}) };
  } catch (err) {
    const noModelsRoute = err instanceof OpenAI.APIError && (err.status === 404 || err.status === 405);
    if (!noModelsRoute || !options.model) throw explain(err);
  }
  try {
    const messages: Message[] = [{ role: 'user', content: 'ping' }];
    const model = options.model;
    const reply = await withCheckRetries(retrying, 'ping', () => client.chat.completions.create({ model, messages, max_tokens: 1 }, request));
    // Paid like any call: the caller adds it to the run's cost.
    const price = priceFor(options.model, options.prices);
    const usage = reply.usage
      ? { promptTokens: reply.usage.prompt_tokens, completionTokens: reply.usage.completion_tokens }
      : { promptTokens: estimatePromptTokens(messages), completionTokens: 1 };
    return { baseURL, ...(price ? { costUsd: costOf(usage, price) } : {}) };
  } catch (err) {
    throw explain(err);
  }
}
