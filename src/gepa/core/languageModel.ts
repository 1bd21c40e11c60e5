// What a language model is to GEPA (gepa-ai/gepa's LanguageModel protocol, beside its reflective
// proposer): an async function from a prompt to text, with its usage and cost when known. lm/
// builds them (OpenAI-compatible, AI SDK, local GGUF). A model that can see images says so
// (`acceptsImages`) and reads the prompt as parts (`ctx.content`), text and images in order.
// Types only; the root entry re-exports them.

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

/** An image in a prompt (optimizeAnything's side information holds them: see `image()`). JSON: it is logged and cached as it is. */
export interface ImagePart {
  /** Marks the part as an image. */
  type: 'image';
  /** e.g. 'image/png'. */
  mediaType: string;
  /** The image's bytes, base64. */
  data: string;
}

/** A prompt as parts: text, and images where they stand in it. */
export type PromptPart =
  | {
      /** Marks the part as text. */
      type: 'text';
      /** The text, as it stands between the images. */
      text: string;
    }
  | ImagePart;

/** What a model is handed beside the prompt. */
export interface LanguageModelContext {
  /** Aborted when the run stops at once (a timeout, the caller's signal): give up the call. */
  signal: AbortSignal;
  /**
   * The same prompt as parts, set only when it holds images and the model `acceptsImages`. The
   * text `prompt` then names each image where it stands (`[image 1: image/png, ...]`).
   */
  content?: readonly PromptPart[];
}

/**
 * A language model is just an async function; `openai:<model>` strings build one that talks
 * to any OpenAI-compatible endpoint (OPENAI_BASE_URL, OPENAI_API_KEY), `local:<path to a .gguf>`
 * one that runs the file in this process (node-llama-cpp). A model that can see images carries
 * `acceptsImages: true` and reads `ctx.content` (the OpenAI-compatible and AI SDK models do).
 */
export type LanguageModel = ((prompt: string, ctx: LanguageModelContext) => Promise<string | LmReply>) & {
  /** True when the model reads images (`ctx.content`); without it, a prompt with images sent to it is a failed call. */
  readonly acceptsImages?: boolean;
};
