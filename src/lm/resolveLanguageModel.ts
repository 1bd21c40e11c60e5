// Turns the `reflectionLm` of a config into a callable model: a function is used as given,
// `openai:<model>` builds one on the OpenAI-compatible endpoint (OPENAI_BASE_URL,
// OPENAI_API_KEY), anything else is a configuration error said plainly.
import type { LanguageModel } from '../types.js';
import { createOpenAILanguageModel, type OpenAIModelOptions } from './openaiLanguageModel.js';

const OPENAI_PREFIX = 'openai:';

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
  throw new Error(
    `Unknown language model ${JSON.stringify(lm)}: expected a function or "openai:<model>" (e.g. "openai:gpt-4.1-mini")`,
  );
}
