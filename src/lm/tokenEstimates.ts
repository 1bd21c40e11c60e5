import type { PromptPart } from '../gepa/core/languageModel.js';

// Token counts guessed from text, for what must be known before a server answers: the tokens a
// rate limit is charged, the worst-case dollars a budget reserves, and the bill of a reply that
// reported no usage. Shared by every model backend that talks to a server (OpenAI, AI SDK).

/**
 * Completion tokens assumed by estimateMaxCostUsd when `maxTokens` is not set. It is not sent
 * to the server (small local models would reject it), so only `maxTokens` makes the estimate
 * a hard worst case.
 */
export const ESTIMATE_COMPLETION_TOKENS = 16_384;
// Deliberately pessimistic (English averages ~4 characters a token) so reservations cover the call.
const CHARS_PER_TOKEN_ESTIMATE = 3;
const MESSAGE_OVERHEAD_TOKENS = 8;
const TEMPLATE_PREAMBLE_TOKENS = 64;

/**
 * A message as the backends send it. `parts`: the user prompt as text and images (a model that
 * accepts images sends these instead of `content`, which is the same prompt as text).
 */
export type Message = { role: 'system' | 'user'; content: string; parts?: readonly PromptPart[] };

/**
 * Tokens one image is counted at, for rate limits and dollar reservations: above what OpenAI
 * bills an image at high detail (at most 1,105 tokens once it is scaled to 2048 x 768 tiles).
 */
export const IMAGE_TOKENS_BOUND = 1_600;

const imageTokens = (m: Message): number => (m.parts ?? []).filter((p) => p.type === 'image').length * IMAGE_TOKENS_BOUND;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN_ESTIMATE);
}

export function estimatePromptTokens(messages: readonly Message[]): number {
  return messages.reduce((sum, m) => sum + estimateTokens(m.content) + imageTokens(m) + MESSAGE_OVERHEAD_TOKENS, 0);
}

/**
 * An upper bound on the prompt tokens a server counts, for dollar reservations: a token covers at
 * least one UTF-8 byte in byte-level tokenizers, and a chat template adds a few per message plus
 * a preamble. (A chars/3 guess fell below servers' counts and let a cap be passed.)
 */
export function boundPromptTokens(messages: readonly Message[]): number {
  return TEMPLATE_PREAMBLE_TOKENS + messages.reduce((sum, m) => sum + Buffer.byteLength(m.content, 'utf8') + imageTokens(m) + MESSAGE_OVERHEAD_TOKENS, 0);
}

// An empty system prompt is sent as no system message rather than an empty one.
export const messagesOf = (system: string | undefined, user: string, parts?: readonly PromptPart[]): Message[] => [
  ...(system ? [{ role: 'system' as const, content: system }] : []),
  { role: 'user', content: user, ...(parts ? { parts } : {}) },
];
