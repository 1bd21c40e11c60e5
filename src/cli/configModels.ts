// The run config's model names made models: a plain name is a model on the OpenAI-compatible
// endpoint, `local:<path to a .gguf>` (relative to the config file) a model that runs in this
// process. Local models are loaded before the run starts, as the endpoint is checked, so a
// missing package or a bad file stops the command before any work.
import { dirname, isAbsolute, resolve } from 'node:path';
import { createLocalChatModel, createLocalLanguageModel, type LocalModelOptions } from '../lm/localLanguageModel.js';
import { createOpenAIChatModel, createOpenAILanguageModel, type OpenAIModelOptions } from '../lm/openaiLanguageModel.js';
import { LOCAL_PREFIX, modelStringName } from '../lm/resolveLanguageModel.js';

export const isLocalModel = (name: string): boolean => name.startsWith(LOCAL_PREFIX);

/** The name a config's model is counted and priced under (a local model's file name without .gguf). */
export const configModelName = (name: string): string => (isLocalModel(name) ? modelStringName(name) : name);

type Shared = Omit<OpenAIModelOptions, 'model'>;

function localOptions(name: string, configPath: string, shared: Shared): LocalModelOptions {
  const path = name.slice(LOCAL_PREFIX.length).trim();
  if (path === '') throw new Error(`"${name}" names no file: use "local:<path to a .gguf>" (relative to the config file)`);
  return {
    modelPath: isAbsolute(path) ? path : resolve(dirname(configPath), path),
    name: configModelName(name),
    ...(shared.temperature !== undefined ? { temperature: shared.temperature } : {}),
    ...(shared.maxTokens !== undefined ? { maxTokens: shared.maxTokens } : {}),
    ...(shared.prices ? { prices: shared.prices } : {}),
  };
}

export function configChatModel(name: string, configPath: string, shared: Shared) {
  return isLocalModel(name) ? createLocalChatModel(localOptions(name, configPath, shared)) : createOpenAIChatModel({ ...shared, model: name });
}

export function configLanguageModel(name: string, configPath: string, shared: Shared) {
  return isLocalModel(name) ? createLocalLanguageModel(localOptions(name, configPath, shared)) : createOpenAILanguageModel({ ...shared, model: name });
}

/** Loads the weights of each `local:` model named (models on one file share them). */
export async function loadLocalModels(names: readonly string[], configPath: string): Promise<void> {
  for (const name of names) await createLocalLanguageModel(localOptions(name, configPath, {})).load();
}
