// The run config's model names made models: a plain name is a model on the OpenAI-compatible
// endpoint, `local:<path to a .gguf>` (relative to the config file) a model that runs in this
// process, `./reflect.mjs#reflect` (a path to an ES module, relative to the config, and an export)
// the user's own model: an async (prompt) => string or { text }, or an AI SDK model object, with
// no endpoint and no key. Local models are loaded before the run starts, as the endpoint is
// checked, and module models as the config is read, so a missing package, a bad file or a
// missing export stops the command before any work.
import { dirname, isAbsolute, resolve } from 'node:path';
import { createLocalChatModel, createLocalLanguageModel, type LocalModelOptions } from '../lm/localLanguageModel.js';
import { createOpenAIChatModel, createOpenAILanguageModel, type OpenAIModelOptions } from '../lm/openaiLanguageModel.js';
import { LOCAL_PREFIX, modelStringName } from '../lm/resolveLanguageModel.js';
import { createAiSdkLanguageModel, type AiSdkModel } from '../lm/aiSdkLanguageModel.js';
import { loadModuleExport, parseAdapterSpec } from '../worker/loadAdapter.js';
import type { LanguageModel } from '../gepa/core/languageModel.js';

export const isLocalModel = (name: string): boolean => name.startsWith(LOCAL_PREFIX);

/** A model named as an ES module's export (`./reflect.mjs#reflect`, `/abs/model.js`): a path, or a file name of a script. */
export const isModuleModel = (name: string): boolean => !isLocalModel(name) && (/^(\.{1,2}[\\/]|\/|file:)/.test(name) || /\.[cm]?[jt]s(#|$)/.test(name));

/** A model the endpoint serves: neither a local file nor a module. */
export const isEndpointModel = (name: string): boolean => !isLocalModel(name) && !isModuleModel(name);

const isAiSdkModel = (value: unknown): value is AiSdkModel =>
  typeof value === 'object' && value !== null && typeof (value as AiSdkModel).provider === 'string' && typeof (value as AiSdkModel).modelId === 'string';

/**
 * The model a module exports (`PATH[#EXPORT]`, relative to `base`; the export defaults to `field`'s
 * own name, e.g. `reflect`): a function is the model as it is ((prompt, ctx) => string or { text }),
 * an AI SDK model object (provider('model-id')) is called through the AI SDK.
 */
export async function loadModuleModel(spec: string, base: string, field: string, defaultExport: string): Promise<LanguageModel> {
  const { adapterPath, exportName } = parseAdapterSpec(spec, field, defaultExport);
  const exported = await loadModuleExport(resolve(base, adapterPath), exportName, `${field} model`);
  if (typeof exported === 'function') return exported as LanguageModel;
  if (isAiSdkModel(exported)) return createAiSdkLanguageModel(exported);
  throw new Error(
    `export "${exportName}" of ${resolve(base, adapterPath)} is not a model: export an async (prompt) => string (or { text }), or an AI SDK model object (provider('model-id'))`,
  );
}

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
