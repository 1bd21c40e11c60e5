// Language models that run in this process on a GGUF file (llama.cpp through node-llama-cpp, an
// optional peer): the local pair of the OpenAI factories, same call shapes, same LmReply with
// token usage, dollars only when a price is given. The file is checked when the model is built
// (missing, not a GGUF); the weights load on the first call (or load()) and are shared.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { errorMessage } from '../errors/errorMessage.js';
import type { LmReply } from '../gepa/core/languageModel.js';
import type { ChatMessages } from './openaiLanguageModel.js';
import { availableParallelism } from 'node:os';
import { PromptTooLongError, sharedEngine, type EngineKey, type GenerateRequest, type PromptTemplate } from './localModelEngine.js';
import { costOf, priceFor, type PriceOverrides } from './priceTable.js';

export { disposeLocalModels } from './localModelEngine.js';

export const DEFAULT_LOCAL_CONTEXT_SIZE = 4096;
export const DEFAULT_LOCAL_MAX_TOKENS = 512;

/** Options of createLocalLanguageModel and createLocalChatModel. */
export interface LocalModelOptions {
  /** A .gguf file (a relative path is taken from the working directory). */
  modelPath: string;
  /** Optional system message sent before every prompt (LanguageModel only). */
  system?: string;
  /** Sampling; unset = greedy decoding (temperature 0), the same reply for the same prompt. */
  temperature?: number;
  /** Nucleus sampling: only the most likely tokens whose probabilities add up to topP (with temperature > 0). */
  topP?: number;
  /** Reply tokens at most. Default 512; a reply never runs past the context either. */
  maxTokens?: number;
  /** The sampler's seed (with temperature > 0). */
  seed?: number;
  /** Tokens of context per sequence, prompt and reply. Default 4096; a longer prompt is a recorded failure. */
  contextSize?: number;
  /**
   * Calls decoded together on the one loaded model. Default 1: calls queue for it, which is what
   * measured faster on 2 CPU cores (bench/README.md, "A real model on real data").
   */
  sequences?: number;
  /**
   * CPU threads for llama.cpp. Default: half the cores (at least 1). llama.cpp's threads spin
   * while they wait for each other, so more threads than free cores is far slower, not faster.
   */
  threads?: number;
  /**
   * How system and user text become the prompt. 'chat' (default): the model's chat template,
   * from the file (node-llama-cpp's for the architecture when the file has none). 'none': the two
   * joined by a blank line and continued as plain text, for base models that know no chat turns.
   */
  template?: PromptTemplate;
  /** The name in usage tables and report.html. Default the file name without .gguf. */
  name?: string;
  /** Dollars per token for this name; without one the model is "unpriced". */
  prices?: PriceOverrides;
}

/** Failure kinds of a local model: the file (at build time) or a call. */
export type LocalModelErrorKind = 'missing-file' | 'not-gguf' | 'load' | 'context-length' | 'empty';

/** Why a local model could not be built or a call failed; `kind` classifies it as the tally counts it. */
export class LocalModelError extends Error {
  /** 'LocalModelError'. */
  override readonly name = 'LocalModelError';
  constructor(
    message: string,
    /** What failed. */
    readonly kind: LocalModelErrorKind,
    /** What the failed call used, when it got that far. */
    readonly details: {
      /** Tokens read and generated. */
      usage?: {
        /** Tokens read (the prompt). */
        promptTokens: number;
        /** Tokens generated (the reply). */
        completionTokens: number;
      };
      /** Dollars they cost (a priced model). */
      costUsd?: number;
    } = {},
  ) {
    super(message);
  }
  /** What the failed call cost (an empty reply of a priced model), as LanguageModelError has it. */
  get costUsd(): number | undefined {
    return this.details.costUsd;
  }
}

const GGUF_MAGIC = 'GGUF';

/** Throws LocalModelError unless `path` is a readable file that starts as a GGUF file does. */
export function checkGgufFile(path: string): void {
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new Error('not a file');
    size = stat.size;
  } catch (error) {
    throw new LocalModelError(`local model ${path}: no such file (${errorMessage(error)})`, 'missing-file');
  }
  const head = Buffer.alloc(4);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, head, 0, 4, 0);
  } finally {
    closeSync(fd);
  }
  if (size < 4 || head.toString('latin1') !== GGUF_MAGIC) {
    throw new LocalModelError(`local model ${path}: not a GGUF file (it starts with ${JSON.stringify(head.subarray(0, Math.min(4, size)).toString('latin1'))}, expected "GGUF")`, 'not-gguf');
  }
}

function positive(name: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isInteger(value) || value < 1)) throw new Error(`${name} must be a positive integer, got ${value}`);
}

type Ctx = { signal: AbortSignal };
const neverAborted = () => new AbortController().signal;

/** A model over one GGUF file: the call, its name, and load() to pay the load before a run. */
function localCaller(options: LocalModelOptions) {
  if (!options.modelPath) throw new Error('A local model needs a modelPath (a .gguf file)');
  positive('maxTokens', options.maxTokens);
  positive('contextSize', options.contextSize);
  positive('sequences', options.sequences);
  positive('threads', options.threads);
  const modelPath = resolve(options.modelPath);
  checkGgufFile(modelPath);
  const name = options.name ?? basename(modelPath).replace(/\.gguf$/i, '');
  const price = priceFor(name, options.prices);
  const key: EngineKey = {
    modelPath,
    contextSize: options.contextSize ?? DEFAULT_LOCAL_CONTEXT_SIZE,
    sequences: options.sequences ?? 1,
    threads: options.threads ?? Math.max(1, Math.floor(availableParallelism() / 2)),
  };
  const template = options.template ?? 'chat';
  if (template !== 'chat' && template !== 'none') throw new Error(`template must be 'chat' or 'none', got ${JSON.stringify(template)}`);
  const engine = async () => {
    try {
      return await sharedEngine(key);
    } catch (error) {
      // A missing package is already named with its install command; keep that error as it is.
      if ((error as { name?: unknown }).name === 'MissingDependencyError') throw error;
      throw new LocalModelError(`local model ${modelPath} did not load: ${errorMessage(error)}`, 'load');
    }
  };

  async function call(system: string | undefined, user: string, ctx: Ctx): Promise<LmReply> {
    const request: GenerateRequest = {
      template,
      ...(system ? { system } : {}),
      user,
      maxTokens: options.maxTokens ?? DEFAULT_LOCAL_MAX_TOKENS,
      signal: ctx.signal,
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      ...(options.topP !== undefined ? { topP: options.topP } : {}),
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
    };
    let out;
    try {
      out = await (await engine()).generate(request);
    } catch (error) {
      if (error instanceof PromptTooLongError) throw new LocalModelError(`${name}: ${error.message}`, 'context-length', { usage: { promptTokens: error.promptTokens, completionTokens: 0 } });
      throw error;
    }
    const usage = { promptTokens: out.promptTokens, completionTokens: out.completionTokens };
    const spent = { usage, ...(price ? { costUsd: costOf(usage, price) } : {}) };
    if (out.text.trim() === '') throw new LocalModelError(`${name}: empty reply (stop: ${out.stopReason})`, 'empty', spent);
    return { text: out.text, ...spent };
  }

  return {
    call,
    name,
    load: async () => {
      await engine();
    },
    // Prompt and reply share one context, so a full context at the dearer rate bounds any call.
    ...(price ? { maxCostUsd: costOf({ promptTokens: key.contextSize, completionTokens: key.contextSize }, price) } : {}),
  };
}

/** A reflection model running a GGUF file in this process (createLocalLanguageModel). */
export type LocalLanguageModel = ((prompt: string, ctx?: Ctx) => Promise<LmReply>) & {
  /** The name usage is counted under. */
  readonly model: string;
  /** Loads the weights now (a missing package or a bad file fails here, before any work). */
  load(): Promise<void>;
  /** Worst-case dollars for one call (a full context), when the model is priced. */
  readonly estimateMaxCostUsd?: (prompt: string) => number;
};

/** A task model running a GGUF file in this process (createLocalChatModel), for createChatAdapter. */
export type LocalChatModel = ((messages: ChatMessages, ctx?: Ctx) => Promise<LmReply>) & {
  /** The name usage is counted under. */
  readonly model: string;
  /** Loads the weights now (a missing package or a bad file fails here, before any work). */
  load(): Promise<void>;
  /** Worst-case dollars for one call (a full context), when the model is priced. */
  readonly estimateMaxCostUsd?: (messages: ChatMessages) => number;
};

/** A LanguageModel (prompt in, LmReply out) running a GGUF file in this process. */
export function createLocalLanguageModel(options: LocalModelOptions): LocalLanguageModel {
  const c = localCaller(options);
  const bound = c.maxCostUsd;
  return Object.assign((prompt: string, ctx: Ctx = { signal: neverAborted() }) => c.call(options.system, prompt, ctx), {
    model: c.name,
    load: c.load,
    ...(bound !== undefined ? { estimateMaxCostUsd: () => bound } : {}),
  });
}

/** A chat model ({system, user} in, LmReply out) for task adapters; same engine. */
export function createLocalChatModel(options: Omit<LocalModelOptions, 'system'>): LocalChatModel {
  const c = localCaller(options);
  const bound = c.maxCostUsd;
  return Object.assign(({ system, user }: ChatMessages, ctx: Ctx = { signal: neverAborted() }) => c.call(system, user, ctx), {
    model: c.name,
    load: c.load,
    ...(bound !== undefined ? { estimateMaxCostUsd: () => bound } : {}),
  });
}
