/**
 * `gepa-actors/models`: language models to reflect with (and to use as a chat task's model): any
 * OpenAI-compatible endpoint, the AI SDK's models (the `ai` package, an optional peer), a local GGUF
 * file (node-llama-cpp, an optional peer); their prices and a response cache. docs/models.md.
 *
 * @module gepa-actors/models
 */
export {
  createOpenAIChatModel,
  createOpenAILanguageModel,
  type ChatMessages,
  type EndpointOptions,
  type LanguageModelErrorKind,
  type OpenAIChatModel,
  type OpenAILanguageModel,
  type OpenAIModelOptions,
} from '../lm/openaiLanguageModel.js';
export {
  createLocalChatModel,
  createLocalLanguageModel,
  disposeLocalModels,
  LocalModelError,
  type LocalChatModel,
  type LocalLanguageModel,
  type LocalModelErrorKind,
  type LocalModelOptions,
} from '../lm/localLanguageModel.js';
export type { PromptTemplate } from '../lm/localModelEngine.js';
export {
  createAiSdkChatModel,
  createAiSdkLanguageModel,
  type AiSdkChatModel,
  type AiSdkLanguageModel,
  type AiSdkModel,
  type AiSdkModelOptions,
} from '../lm/aiSdkLanguageModel.js';
export type { ModelPrice, PriceOverrides, TokenUsage } from '../lm/priceTable.js';
export { createResponseCache, type ResponseCache, type CachedReply, type ResponseCacheStats } from '../lm/responseCache.js';
