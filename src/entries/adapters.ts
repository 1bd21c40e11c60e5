/**
 * `gepa-actors/adapters`: ready adapters: the chat task `gepa-actors run` builds (a task model, a
 * metric, JSONL datasets) and one around an app's own AI SDK call. docs/models.md.
 *
 * @module gepa-actors/adapters
 */
export {
  createChatAdapter,
  loadJsonlDataset,
  type ChatAdapter,
  type ChatAdapterOptions,
  type ChatExample,
  type ChatMetric,
  type ChatTaskModel,
  type JsonlDatasetOptions,
} from '../adapters/chatAdapter.js';
export {
  createAiSdkAdapter,
  type AiSdkAdapter,
  type AiSdkAdapterOptions,
  type AiSdkCallResult,
  type AiSdkScore,
} from '../adapters/aiSdkAdapter.js';
