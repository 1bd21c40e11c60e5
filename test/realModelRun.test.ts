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

/** The calculator task on the server at `baseURL`: its chat adapter and reflection model, 4 workers. */
function calculatorRun(baseURL: string) {
  const common = { baseURL, apiKey: 'test-key', maxTokens: 200, retryBaseDelayMs: 1, retryMaxDelayMs: 5 };
  return {
    seedCandidate: { system_prompt: 'You are a calculator.' },
    trainset: examples(6, 1),
    valset: examples(5, 20),
    adapter: createChatAdapter({ taskModel: createOpenAIChatModel({ ...common, model: TASK_MODEL }), metric: 'exact-match' }),
    reflectionLm: createOpenAILanguageModel({ ...common, model: REFLECTION_MODEL }),
    workers: 4,
    // These runs are about retries and dollars: a perfect best must not end them first.
    skipPerfectScore: false,
  };
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
    const result = await optimize({ ...calculatorRun(server.baseURL), maxMetricCalls: 40 });
    const faults = server.requests.filter((r) => r.step === 'rate-limit' || r.step === 'server-error').length;
    expect(faults).toBeGreaterThan(3);
    expect(result.bestScore).toBe(1);
    expect(result.valScores[0]).toBe(0);
    expect(result.costUsd).toBeGreaterThan(0);
    expect(result.costUsd).toBeCloseTo(serverCost(server), 12);
  });

  it('never exceeds a tight maxCostUsd', async () => {
    server = await startFakeOpenAIServer({});
    const maxCostUsd = 0.004;
    // A fixed parent keeps proposing, so only the dollars can stop the run.
    const result = await optimize({ ...calculatorRun(server.baseURL), maxCostUsd, reflectionMinibatchSize: 2 });
    expect(result.stopReason).toBe('maxCostUsd');
    expect(serverCost(server)).toBeLessThanOrEqual(maxCostUsd);
    expect(result.costUsd).toBeCloseTo(serverCost(server), 12);
    // It did spend most of what it was given before stopping.
    expect(result.costUsd).toBeGreaterThan(maxCostUsd / 3);
  });
});
