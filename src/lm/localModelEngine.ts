// One GGUF model loaded in this process through node-llama-cpp (an optional peer, imported on
// first use), with a fixed number of context sequences that every call shares: a call waits for
// a free sequence, so the worker budget's calls never load a second copy of the weights. The
// engine is shared per (file, context size, sequences, threads) across every model built on it.
import { importIntegration, type OptionalIntegration } from '../peers/optionalDependency.js';

export const LOCAL_MODEL: OptionalIntegration = { feature: 'local models (local:<path to a .gguf>)', packages: ['node-llama-cpp'] };

export interface EngineKey {
  modelPath: string;
  /** Tokens of context per sequence (prompt plus reply). */
  contextSize: number;
  /** Sequences decoded together; 1 = the calls queue for one sequence. */
  sequences: number;
  /** CPU threads llama.cpp may use. */
  threads: number;
}

export interface Generation {
  text: string;
  promptTokens: number;
  completionTokens: number;
  stopReason: string;
}

/**
 * 'chat': the model file's chat template (or node-llama-cpp's for its architecture when the file
 * has none). 'none': system and user text joined by a blank line and continued as plain text,
 * which is what a base (not instruction-tuned) model can follow.
 */
export type PromptTemplate = 'chat' | 'none';

export interface GenerateRequest {
  template: PromptTemplate;
  system?: string;
  user: string;
  maxTokens: number;
  temperature?: number;
  topP?: number;
  seed?: number;
  signal: AbortSignal;
}

/** Why a prompt was refused before generation: it does not fit a sequence's context. */
export class PromptTooLongError extends Error {
  constructor(
    readonly promptTokens: number,
    readonly contextSize: number,
  ) {
    super(`the prompt is ${promptTokens} tokens, the context holds ${contextSize} (contextSize): nothing was generated`);
  }
}

export interface LocalEngine {
  generate(request: GenerateRequest): Promise<Generation>;
  dispose(): Promise<void>;
}

// The parts of node-llama-cpp we use, typed here so that no public declaration names the package.
interface ChatItem {
  type: 'system' | 'user' | 'model';
  text?: string;
  response?: string[];
}
interface LlamaCompletionLike {
  generateCompletionWithMeta(text: string, options: Record<string, unknown>): Promise<{ response: string; metadata: { stopReason: string } }>;
  dispose(): void;
}
/** One sequence and the two ways we drive it (built once, kept for its cached prefix). */
interface SequenceSlot {
  chat: LlamaChatLike;
  completion: LlamaCompletionLike;
}
interface LlamaChatLike {
  chatWrapper: { generateContextState(o: { chatHistory: ChatItem[] }): { contextText: { tokenize(t: unknown): unknown[] } } };
  generateResponse(
    history: ChatItem[],
    options: Record<string, unknown>,
  ): Promise<{ response: string; metadata: { stopReason: string } }>;
  dispose(): void;
}

async function loadEngine(key: EngineKey): Promise<LocalEngine> {
  const llamaCpp = await importIntegration(LOCAL_MODEL, () => import('node-llama-cpp'));
  // CPU only, prebuilt binaries only: a run never downloads or compiles anything.
  const llama = await llamaCpp.getLlama({
    gpu: false,
    build: 'never',
    skipDownload: true,
    logLevel: llamaCpp.LlamaLogLevel.error,
    maxThreads: key.threads,
  });
  const model = await llama.loadModel({ modelPath: key.modelPath });
  const context = await model.createContext({
    contextSize: key.contextSize * key.sequences,
    sequences: key.sequences,
    threads: key.threads,
  });
  // Kept per sequence: a sequence reuses the prefix it already holds (the system prompt).
  const free: SequenceSlot[] = Array.from({ length: key.sequences }, () => {
    const contextSequence = context.getSequence();
    return {
      chat: new llamaCpp.LlamaChat({ contextSequence, autoDisposeSequence: false }) as unknown as LlamaChatLike,
      completion: new llamaCpp.LlamaCompletion({ contextSequence, autoDisposeSequence: false }) as unknown as LlamaCompletionLike,
    };
  });
  const waiting: Array<(slot: SequenceSlot) => void> = [];
  const bosTokens = model.tokens.shouldPrependBosToken ? 1 : 0;

  // Waiting calls that share a signal (a run passes one to all its calls) share one abort
  // listener on it, however many of them queue.
  const waitersOf = new WeakMap<AbortSignal, Set<{ grant: (slot: SequenceSlot) => void; reject: (reason: unknown) => void }>>();
  const acquire = (signal: AbortSignal): Promise<SequenceSlot> => {
    const slot = free.pop();
    if (slot) return Promise.resolve(slot);
    return new Promise((resolve, reject) => {
      let waiters = waitersOf.get(signal);
      if (!waiters) {
        const mine = new Set<{ grant: (slot: SequenceSlot) => void; reject: (reason: unknown) => void }>();
        waiters = mine;
        waitersOf.set(signal, mine);
        signal.addEventListener(
          'abort',
          () => {
            for (const w of mine) {
              waiting.splice(waiting.indexOf(w.grant), 1);
              w.reject(signal.reason);
            }
            mine.clear();
          },
          { once: true },
        );
      }
      const waiter = {
        grant: (c: SequenceSlot) => {
          waiters.delete(waiter);
          resolve(c);
        },
        reject,
      };
      waiters.add(waiter);
      waiting.push(waiter.grant);
    });
  };
  const release = (chat: SequenceSlot) => {
    const next = waiting.shift();
    if (next) next(chat);
    else free.push(chat);
  };

  async function generate(request: GenerateRequest): Promise<Generation> {
    request.signal.throwIfAborted();
    const history: ChatItem[] = [
      ...(request.system ? [{ type: 'system' as const, text: request.system }] : []),
      { type: 'user', text: request.user },
      { type: 'model', response: [] },
    ];
    const plainText = request.system ? `${request.system}\n\n${request.user}` : request.user;
    const slot = await acquire(request.signal);
    try {
      // The prompt is counted as the engine reads it: template, special tokens and all.
      const promptTokens =
        request.template === 'chat'
          ? slot.chat.chatWrapper.generateContextState({ chatHistory: history }).contextText.tokenize(model.tokenizer).length
          : bosTokens + model.tokenize(plainText).length;
      const room = key.contextSize - promptTokens;
      if (room < 1) throw new PromptTooLongError(promptTokens, key.contextSize);
      let completionTokens = 0;
      const options = {
        maxTokens: Math.min(request.maxTokens, room),
        signal: request.signal,
        onToken: (tokens: unknown[]) => {
          completionTokens += tokens.length;
        },
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        ...(request.topP !== undefined ? { topP: request.topP } : {}),
        ...(request.seed !== undefined ? { seed: request.seed } : {}),
      };
      const reply =
        request.template === 'chat'
          ? await slot.chat.generateResponse(history, options)
          : await slot.completion.generateCompletionWithMeta(plainText, options);
      return { text: reply.response, promptTokens, completionTokens, stopReason: reply.metadata.stopReason };
    } catch (error) {
      if (request.signal.aborted) throw request.signal.reason;
      throw error;
    } finally {
      release(slot);
    }
  }

  return {
    generate,
    async dispose() {
      for (const slot of free) {
        slot.chat.dispose();
        slot.completion.dispose();
      }
      await context.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
}

const engines = new Map<string, Promise<LocalEngine>>();

/** The engine for `key`, loaded once per process; a failed load is forgotten so a retry can succeed. */
export function sharedEngine(key: EngineKey): Promise<LocalEngine> {
  const id = JSON.stringify([key.modelPath, key.contextSize, key.sequences, key.threads]);
  let engine = engines.get(id);
  if (!engine) {
    engine = loadEngine(key);
    engines.set(id, engine);
    engine.catch(() => engines.delete(id));
  }
  return engine;
}

/** Frees every loaded local model (their memory and threads); later calls load them again. */
export async function disposeLocalModels(): Promise<void> {
  const loaded = [...engines.values()];
  engines.clear();
  await Promise.all(loaded.map(async (e) => (await e.catch(() => undefined))?.dispose()));
}
