// What a language model is to GEPA (gepa-ai/gepa's LanguageModel protocol, beside its reflective
// proposer): an async function from a prompt to text, with its usage and cost when known. lm/
// builds them (OpenAI-compatible, AI SDK, local GGUF). Types only; src/types.ts re-exports them.

/** A language model's reply with what it cost, when known. */
export interface LmReply {
  /** The reply's text. */
  text: string;
  /** Tokens the call used, as the server reported them. */
  usage?: {
    /** Tokens read (the prompt). */
    promptTokens: number;
    /** Tokens generated (the reply). */
    completionTokens: number;
  };
  /** Dollars the call cost; counted in costUsd and against maxCostUsd. */
  costUsd?: number;
}

/**
 * A language model is just an async function; `openai:<model>` strings build one that talks
 * to any OpenAI-compatible endpoint (OPENAI_BASE_URL, OPENAI_API_KEY), `local:<path to a .gguf>`
 * one that runs the file in this process (node-llama-cpp).
 */
export type LanguageModel = (prompt: string, ctx: { signal: AbortSignal }) => Promise<string | LmReply>;
