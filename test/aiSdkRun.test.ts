// Whole optimizations on AI SDK models over real HTTP (@ai-sdk/openai-compatible to the loopback
// server): the chat adapter's task model and the reflection model through createAiSdk*Model,
// injected 429s and 500s, dollars equal to the server's usage times the prices, a dollar budget
// never passed, a 404 model that stops the run loudly, and a run directory that resumes with no
// runIdentity (the models name themselves) and refuses another reflection model.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, optimize, type RunEvent } from '../src/index.js';
import { createAiSdkChatModel, createAiSdkLanguageModel } from '../src/entries/models.js';
import { createChatAdapter, type ChatExample } from '../src/entries/adapters.js';
import { costOf, type ModelPrice } from '../src/lm/priceTable.js';
import { startFakeOpenAIServer, type FakeOpenAIServer, type FakeServerOptions, type RecordedRequest } from './support/fakeOpenAIServer.js';
import { failedRun } from './support/failedRun.js';

const PRICES: Record<string, ModelPrice> = {
  'task-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6 },
  'reflect-big': { inputPerMTok: 2, outputPerMTok: 8 },
};

const examples = (n: number, offset: number): ChatExample[] =>
  Array.from({ length: n }, (_, i) => ({ input: `What is ${i + offset} + ${2 * i + 1}?`, answer: String(3 * i + offset + 1) }));

const isReflection = (r: RecordedRequest) => r.body?.messages?.some((m) => m.content?.startsWith('You are improving')) === true;

let server: FakeOpenAIServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function start(options: FakeServerOptions = {}) {
  server = await startFakeOpenAIServer(options);
  return server;
}

/** The calculator task on AI SDK models served by `s`: task-mini answers, reflect-big reflects. */
function calculatorRun(s: FakeOpenAIServer, models: { task?: string; reflection?: string } = {}) {
  const provider = createOpenAICompatible({ name: 'loopback', baseURL: s.baseURL, apiKey: 'test-key', includeUsage: true });
  const options = { prices: PRICES, maxTokens: 200, retryBaseDelayMs: 1, retryMaxDelayMs: 5 };
  return {
    seedCandidate: { system_prompt: 'You are a calculator.' },
    trainset: examples(6, 1),
    valset: examples(5, 20),
    adapter: createChatAdapter({ taskModel: createAiSdkChatModel(provider(models.task ?? 'task-mini'), options), metric: 'exact-match' }),
    reflectionLm: createAiSdkLanguageModel(provider(models.reflection ?? 'reflect-big'), options),
    workers: 4,
    skipPerfectScore: false,
  };
}

/** The dollars the server's reported usage is worth, per request's model. */
function serverCost(s: FakeOpenAIServer): number {
  return s.requests.reduce((sum, r) => {
    if (!r.usage) return sum;
    return sum + costOf({ promptTokens: r.usage.prompt_tokens, completionTokens: r.usage.completion_tokens }, PRICES[String(r.body?.model)]!);
  }, 0);
}

describe('an optimization on AI SDK models', () => {
  it('completes through 20% 429s and 5% 500s, improves on the seed, and costs the server usage times the prices', async () => {
    const s = await start({ faults: { seed: 11, rateLimit: 0.2, serverError: 0.05, retryAfterMs: 1 } });
    const result = await optimize({ ...calculatorRun(s), maxMetricCalls: 40 });
    expect(s.requests.filter((r) => r.step === 'rate-limit' || r.step === 'server-error').length).toBeGreaterThan(3);
    expect(result.metricCalls).toBeLessThanOrEqual(40);
    expect(result.valScores[0]).toBe(0);
    expect(result.bestScore).toBe(1);
    expect(result.reflectionCalls).toBeGreaterThan(0);
    // Both models were called, each under its own id.
    expect(new Set(s.requests.map((r) => r.body?.model))).toEqual(new Set(['task-mini', 'reflect-big']));
    expect(result.costUsd).toBeGreaterThan(0);
    expect(result.costUsd).toBeCloseTo(serverCost(s), 12);
    expect(result.failures).toEqual({ total: 0, byKind: {} });
  });

  it('never exceeds a tight maxCostUsd', async () => {
    const s = await start();
    const maxCostUsd = 0.03;
    const result = await optimize({ ...calculatorRun(s), maxCostUsd, reflectionMinibatchSize: 2 });
    expect(result.stopReason).toBe('maxCostUsd');
    expect(serverCost(s)).toBeLessThanOrEqual(maxCostUsd);
    expect(result.costUsd).toBeCloseTo(serverCost(s), 12);
    expect(result.costUsd).toBeGreaterThan(maxCostUsd / 3);
  });

  it('a task model the server does not have (404) stops the run loudly, with no retry and no reflection', async () => {
    const s = await start({ stepFor: (_m, _n, model) => (model === 'task-typo' ? { kind: 'status', status: 404, message: 'The model `task-typo` does not exist' } : undefined) });
    const { result } = await failedRun(optimize({ ...calculatorRun(s, { task: 'task-typo' }), maxMetricCalls: 100 }));
    expect(result.error).toBe(
      "every call of the seed candidate's valset evaluation failed (5 of 5); the first: task-typo (loopback.chat): HTTP 404: The model `task-typo` does not exist",
    );
    expect(result.failures).toEqual({ total: 5, byKind: { 'http 404': 5 } });
    expect(s.requests).toHaveLength(5);
    expect(s.requests.filter(isReflection)).toEqual([]);
  });

  it('resumes from its run directory without runIdentity, and refuses another reflection model', async () => {
    const s = await start();
    dir = await mkdtemp(join(tmpdir(), 'gepa-aisdk-resume-'));
    const runDir = join(dir, 'run');
    // Stopped once the seed is scored; then the same call resumes it.
    const stop = new AbortController();
    const onEvent = (e: RunEvent) => void (e.type === 'front.updated' && stop.abort());
    const first = await optimize({ ...calculatorRun(s), maxMetricCalls: 40, runDir, signal: stop.signal, onEvent });
    expect(first.stopReason).toBe('aborted');
    const resumed = await optimize({ ...calculatorRun(s), maxMetricCalls: 40, runDir });
    expect(resumed.stopReason).not.toBe('aborted');
    expect(resumed.metricCalls).toBeGreaterThan(first.metricCalls);
    // The seed's valset calls of the first process were replayed from the log, not sent again.
    const seedCall = (r: RecordedRequest) => r.body?.messages?.[0]?.content === 'You are a calculator.' && r.body.messages[1]?.content === 'What is 20 + 1?';
    expect(s.requests.filter(seedCall)).toHaveLength(1);
    expect(resumed.costUsd).toBeCloseTo(serverCost(s), 12);
    const other = optimize({ ...calculatorRun(s, { reflection: 'reflect-other' }), maxMetricCalls: 40, runDir });
    await expect(other).rejects.toBeInstanceOf(ConfigError);
    await expect(other).rejects.toThrow(/reflectionLm: "ai-sdk:loopback\.chat\/reflect-big" in the run directory, "ai-sdk:loopback\.chat\/reflect-other" now/);
  });
});
