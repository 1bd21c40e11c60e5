// A whole optimization through the OpenAI SDK path against our loopback server: the chat task
// adapter for metric calls, an openai reflection model, injected 429s and 500s, and dollars that
// equal the server's own usage times the prices, within a dollar budget that is never exceeded.
import { afterEach, describe, expect, it } from 'vitest';
import { optimize } from '../src/index.js';
import { createChatAdapter, type ChatExample } from '../src/adapters/chatAdapter.js';
import { createOpenAIChatModel, createOpenAILanguageModel } from '../src/lm/openaiLanguageModel.js';
import { costOf, priceFor } from '../src/lm/priceTable.js';
import { startFakeOpenAIServer, type FakeOpenAIServer } from './support/fakeOpenAIServer.js';

const TASK_MODEL = 'gpt-4.1-mini';
const REFLECTION_MODEL = 'gpt-5-mini';

const examples = (n: number, offset: number): ChatExample[] =>
  Array.from({ length: n }, (_, i) => ({ input: `What is ${i + offset} + ${2 * i + 1}?`, answer: String(3 * i + offset + 1) }));

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function models(baseURL: string) {
  const common = { baseURL, apiKey: 'test-key', maxTokens: 200, retryBaseDelayMs: 1, retryMaxDelayMs: 5 };
  const adapter = createChatAdapter({ taskModel: createOpenAIChatModel({ ...common, model: TASK_MODEL }), metric: 'exact-match' });
  const reflectionLm = createOpenAILanguageModel({ ...common, model: REFLECTION_MODEL });
  return { adapter, reflectionLm };
}

/** The dollars the server's reported usage is worth, per request's model. */
function serverCost(s: FakeOpenAIServer): number {
  let total = 0;
  for (const r of s.requests) {
    const usage = r.usage;
    if (!usage) continue;
    const model = String(r.body?.model);
    const price = priceFor(model);
    if (!price) throw new Error(`no price for ${model}`);
    total += costOf({ promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens }, price);
  }
  return total;
}

describe('an optimization against an OpenAI-compatible server', () => {
  it('completes through 20% 429s and 5% 500s, and its cost is the server usage times the prices', async () => {
    server = await startFakeOpenAIServer({ faults: { seed: 11, rateLimit: 0.2, serverError: 0.05, retryAfterMs: 1 } });
    const { adapter, reflectionLm } = models(server.baseURL);
    const result = await optimize({
      seedCandidate: { system_prompt: 'You are a calculator.' },
      trainset: examples(6, 1),
      valset: examples(5, 20),
      adapter,
      reflectionLm,
      maxMetricCalls: 40,
      workers: 4,
    });
    const faults = server.requests.filter((r) => r.step === 'rate-limit' || r.step === 'server-error').length;
    expect(faults).toBeGreaterThan(3);
    expect(result.bestScore).toBe(1);
    expect(result.valScores[0]).toBe(0);
    expect(result.costUsd).toBeGreaterThan(0);
    expect(result.costUsd).toBeCloseTo(serverCost(server), 12);
  });

  it('never exceeds a tight maxCostUsd', async () => {
    server = await startFakeOpenAIServer({});
    const { adapter, reflectionLm } = models(server.baseURL);
    const maxCostUsd = 0.004;
    const result = await optimize({
      seedCandidate: { system_prompt: 'You are a calculator.' },
      trainset: examples(6, 1),
      valset: examples(5, 20),
      adapter,
      reflectionLm,
      maxCostUsd,
      // A fixed parent keeps proposing, so only the dollars can stop the run.
      reflectionMinibatchSize: 2,
      workers: 4,
    });
    expect(result.stopReason).toBe('maxCostUsd');
    expect(serverCost(server)).toBeLessThanOrEqual(maxCostUsd);
    expect(result.costUsd).toBeCloseTo(serverCost(server), 12);
    // It did spend most of what it was given before stopping.
    expect(result.costUsd).toBeGreaterThan(maxCostUsd / 3);
  });
});
