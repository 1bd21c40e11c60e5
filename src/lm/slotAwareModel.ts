// The seam between the run's worker slots and a language model that takes a slot itself, once
// per attempt, so that its backoff and rate-limit waits hold none; such a model may also give a
// worst-case price per prompt, so dollars can be reserved before the call.
import type { LanguageModel, PromptPart } from '../gepa/core/languageModel.js';
import type { RetryNotice } from '../gepa/core/adapter.js';

/** The runtime's call context, plus the seam through which a model takes a worker slot per attempt. */
export interface SlotAwareContext {
  signal: AbortSignal;
  runInSlot?: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Told before each wait between attempts, so that a long wait is visible. */
  onRetry?: (notice: RetryNotice) => void;
}

/** Marks a model that takes slots itself (per attempt): the runtime must not wrap the call. */
export interface ManagesSlots {
  readonly managesSlots: true;
  readonly model: string;
}

/** A reflection model as the evaluation service calls it: any LanguageModel, maybe slot-aware, maybe priced. */
export type SlotAwareLanguageModel = LanguageModel & {
  readonly managesSlots?: boolean;
  /** `content`: the prompt as parts when it holds images (each image is priced too). */
  readonly estimateMaxCostUsd?: (prompt: string, content?: readonly PromptPart[]) => number;
};

export function managesOwnSlots(fn: unknown): fn is ManagesSlots {
  return typeof fn === 'function' && (fn as Partial<ManagesSlots>).managesSlots === true;
}
