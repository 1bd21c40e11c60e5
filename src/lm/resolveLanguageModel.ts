// Turns the `reflectionLm` of a config into a callable model: a function is used as given,
// `openai:<model>` builds one on the OpenAI-compatible endpoint (OPENAI_BASE_URL,
// OPENAI_API_KEY), `local:<path to a .gguf>` one that runs the file in this process, anything
// else is a configuration error said plainly.
import type { LanguageModel } from '../gepa/core/languageModel.js';
import { createOpenAILanguageModel, type OpenAIModelOptions } from './openaiLanguageModel.js';
import { createLocalLanguageModel } from './localLanguageModel.js';

const OPENAI_PREFIX = 'openai:';
export const LOCAL_PREFIX = 'local:';

export function resolveLanguageModel(
  lm: LanguageModel | string,
  options: Omit<OpenAIModelOptions, 'model'> = {},
): LanguageModel {
  if (typeof lm === 'function') return lm;
  if (typeof lm === 'string' && lm.startsWith(OPENAI_PREFIX)) {
    const model = lm.slice(OPENAI_PREFIX.length).trim();
    if (model === '') throw new Error(`Language model "${lm}" names no model: use "openai:<model>", e.g. "openai:gpt-4.1-mini"`);
    return createOpenAILanguageModel({ ...options, model });
  }
  if (typeof lm === 'string' && lm.startsWith(LOCAL_PREFIX)) {
    const modelPath = lm.slice(LOCAL_PREFIX.length).trim();
    if (modelPath === '') throw new Error(`Language model "${lm}" names no file: use "local:<path to a .gguf>"`);
    return createLocalLanguageModel({ modelPath, ...(options.prices ? { prices: options.prices } : {}) });
  }
  throw new Error(
    `Unknown language model ${JSON.stringify(lm)}: expected a function, "openai:<model>" (e.g. "openai:gpt-4.1-mini") or "local:<path to a .gguf>"`,
  );
}

/** The name a model string's usage is counted under: the model after `openai:`, the file name (no .gguf) after `local:`. */
export function modelStringName(lm: string): string {
  if (lm.startsWith(LOCAL_PREFIX)) return (lm.slice(LOCAL_PREFIX.length).trim().split(/[\\/]/).pop() ?? lm).replace(/\.gguf$/i, '');
  return lm.replace(/^openai:/, '');
}
