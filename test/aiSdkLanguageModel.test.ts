// AI SDK models (createAiSdkChatModel, createAiSdkLanguageModel) over real HTTP: `ai`'s
// generateText through @ai-sdk/openai-compatible to the loopback fake server. Replies, tokens
// and dollars against the server's own tally, retries done by our loop only (429 with
// retry-after, 500, a dropped body), loud non-retried failures (404, 400, malformed, empty), a
// hung call's timeout, cancellation, and the per-attempt slot seam.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { systemClock } from '../src/clock.js';
import { createAiSdkChatModel, createAiSdkLanguageModel, usageOf, type AiSdkModelOptions } from '../src/lm/aiSdkLanguageModel.js';
import { costOf, type ModelPrice } from '../src/lm/priceTable.js';
import { createResponseCache } from '../src/lm/responseCache.js';
import { managesOwnSlots } from '../src/lm/slotAwareModel.js';
import { Rng } from '../src/gepa/core/rng.js';
import type { Clock } from '../src/clock.js';
import type { RetryNotice } from '../src/gepa/core/adapter.js';
import { failure, recordingClock } from './support/modelCalls.js';
import { fakeUsage, startFakeOpenAIServer, type FakeOpenAIServer, type FakeServerOptions } from './support/fakeOpenAIServer.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PRICES: Record<string, ModelPrice> = {
  'task-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6 },
  'reflect-big': { inputPerMTok: 2, outputPerMTok: 8 },
};

let server: FakeOpenAIServer | undefined;
async function start(options: FakeServerOptions = {}) {
  server = await startFakeOpenAIServer(options);
  return server;
}
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const providerOn = (s: FakeOpenAIServer) => createOpenAICompatible({ name: 'fake', baseURL: s.baseURL, apiKey: 'test-key', includeUsage: true });
const fast: AiSdkModelOptions = { prices: PRICES, retryBaseDelayMs: 1, retryMaxDelayMs: 4 };
const lmOn = (s: FakeOpenAIServer, options: AiSdkModelOptions = {}, id = 'reflect-big') => createAiSdkLanguageModel(providerOn(s)(id), { ...fast, ...options });
const chatOn = (s: FakeOpenAIServer, options: AiSdkModelOptions = {}, id = 'task-mini') => createAiSdkChatModel(providerOn(s)(id), { ...fast, ...options });

/** What the server's reported usage is worth at PRICES, per request's model. */
function serverCost(s: FakeOpenAIServer): number {
  return s.requests.reduce((sum, r) => {
    if (!r.usage) return sum;
    const price = PRICES[String(r.body?.model)]!;
    return sum + costOf({ promptTokens: r.usage.prompt_tokens, completionTokens: r.usage.completion_tokens }, price);
  }, 0);
}

describe('replies, tokens and dollars', () => {
  it('sends the system prompt, the user message and the sampling options; returns the text, the usage and usage x prices', async () => {
    const s = await start();
    s.script({ kind: 'reply', text: 'Paris', usage: { prompt_tokens: 1200, completion_tokens: 300 } });
    const chat = chatOn(s, { temperature: 0, maxTokens: 50 });
    const reply = await chat({ system: 'Be brief.', user: 'Capital of France?' });
    expect(reply).toEqual({ text: 'Paris', usage: { promptTokens: 1200, completionTokens: 300 }, costUsd: (1200 * 0.4 + 300 * 1.6) / 1e6 });
    const body = s.requests[0]!.body!;
    expect(body.model).toBe('task-mini');
    expect(body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Capital of France?' },
    ]);
    expect(body).toMatchObject({ temperature: 0, max_tokens: 50 });
    expect(s.requests[0]!.authorization).toBe('Bearer test-key');
  });

  it('is a slot-aware, priced model named by provider and model id', () => {
    const s = { baseURL: 'http://127.0.0.1:9/v1' } as FakeOpenAIServer;
    const lm = lmOn(s, { system: 'sys', maxTokens: 100 });
    expect(managesOwnSlots(lm)).toBe(true);
    expect(lm.model).toBe('reflect-big');
    expect(lm.modelIdentity).toBe('ai-sdk:fake.chat/reflect-big');
    // prompt bound: 64 preamble + bytes + 8 per message; completion: maxTokens.
    expect(lm.estimateMaxCostUsd!('hello')).toBe(costOf({ promptTokens: 64 + 3 + 8 + 5 + 8, completionTokens: 100 }, PRICES['reflect-big']!));
    expect(createAiSdkLanguageModel(providerOn(s)('unpriced')).estimateMaxCostUsd).toBeUndefined();
  });

  it('omits an empty system prompt', async () => {
    const s = await start();
    await chatOn(s)({ system: '', user: 'What is 2 + 2?' });
    expect(s.requests[0]!.body!.messages).toEqual([{ role: 'user', content: 'What is 2 + 2?' }]);
  });

  it('sums to exactly the server-reported usage x prices under random 429s and 500s, with no retry by the SDK', async () => {
    const s = await start({ faults: { seed: 7, rateLimit: 0.2, serverError: 0.05, retryAfterMs: 1 } });
    const chat = chatOn(s, { maxRetries: 20 });
    const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => chat({ system: 'Add.', user: `What is ${i} + ${i}?` })));
    // The server's fault sequence is fixed by the seed: requests until the 30th success, each made once by us.
    const rng = new Rng(7);
    let expectedRequests = 0;
    for (let ok = 0; ok < 30; expectedRequests++) if (rng.next() >= 0.25) ok++;
    expect(s.requests).toHaveLength(expectedRequests);
    expect(expectedRequests).toBeGreaterThan(30);
    expect(replies.map((r) => r.text)).toEqual(Array.from({ length: 30 }, (_, i) => `Let me compute: ${i} + ${i} = ${2 * i}.`));
    expect(s.usageReported).toHaveLength(30);
    const tokens = replies.reduce((sum, r) => sum + r.usage!.promptTokens + r.usage!.completionTokens, 0);
    expect(tokens).toBe(s.usageReported.reduce((sum, u) => sum + u.prompt_tokens + u.completion_tokens, 0));
    expect(replies.reduce((sum, r) => sum + r.costUsd!, 0)).toBeCloseTo(serverCost(s), 15);
  });

  it('charges by character estimate when the provider reports no usage', async () => {
    const s = await start();
    s.script({ kind: 'no-usage', text: 'abcdef' });
    const reply = await lmOn(s)('x'.repeat(30));
    expect(reply.usage).toBeUndefined();
    // prompt: ceil(30 / 3) + 8 message overhead; completion: ceil(6 / 3).
    expect(reply.costUsd).toBe(costOf({ promptTokens: 18, completionTokens: 2 }, PRICES['reflect-big']!));
  });

  it('reads usage from totalUsage (every step) before usage (the last step)', () => {
    expect(usageOf({ usage: { inputTokens: 1, outputTokens: 2 }, totalUsage: { inputTokens: 10, outputTokens: 20 } })).toEqual({ promptTokens: 10, completionTokens: 20 });
    expect(usageOf({ usage: { inputTokens: 3, outputTokens: undefined } })).toEqual({ promptTokens: 3, completionTokens: 0 });
    expect(usageOf({ usage: { inputTokens: undefined, outputTokens: undefined } })).toBeUndefined();
  });

  it('a cached reply costs nothing and sends no request', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gepa-aisdk-cache-'));
    try {
      const s = await start();
      const lm = lmOn(s, { cache: createResponseCache(dir) });
      const first = await lm('What is 1 + 2?');
      const again = await lm('What is 1 + 2?');
      expect(s.requests).toHaveLength(1);
      expect(again).toEqual({ text: first.text, usage: first.usage, costUsd: 0 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('retries, in our loop only', () => {
  it('waits what retry-after-ms says on a 429, then succeeds: two requests in all', async () => {
    const s = await start();
    s.script({ kind: 'rate-limit', retryAfterMs: 3 });
    const clock = recordingClock();
    const notices: RetryNotice[] = [];
    const reply = await lmOn(s, { clock })('What is 1 + 1?', { signal: new AbortController().signal, onRetry: (n) => notices.push(n) });
    expect(reply.text).toBe('Let me compute: 1 + 1 = 2.');
    expect(s.requests.map((r) => r.step)).toEqual(['rate-limit', 'reply']);
    expect(clock.waits).toEqual([3]);
    expect(notices).toEqual([{ model: 'reflect-big', attempt: 1, maxAttempts: 7, delayMs: 3, reason: 'HTTP 429: Rate limit reached' }]);
  });

  it('backs off with our deterministic jitter after a 500 and a dropped body, then succeeds', async () => {
    const s = await start();
    s.script({ kind: 'server-error' }, { kind: 'drop' });
    const clock = recordingClock();
    const reply = await lmOn(s, { clock, retryBaseDelayMs: 10, retryMaxDelayMs: 1000 })('What is 2 + 2?');
    expect(reply.text).toBe('Let me compute: 2 + 2 = 4.');
    expect(s.requests.map((r) => r.step)).toEqual(['server-error', 'drop', 'reply']);
    expect(clock.waits).toHaveLength(2);
    expect(clock.waits[0]).toBeGreaterThanOrEqual(5);
    expect(clock.waits[0]).toBeLessThanOrEqual(10);
    expect(clock.waits[1]).toBeGreaterThanOrEqual(10);
    expect(clock.waits[1]).toBeLessThanOrEqual(20);
  });

  it('gives up after maxRetries with an error that says so, and the status', async () => {
    const s = await start();
    s.setMode({ kind: 'server-error', status: 503 });
    const err = await failure(lmOn(s, { maxRetries: 2 })('hi'));
    expect(err.kind).toBe('http');
    expect(err.status).toBe(503);
    expect(err.attempts).toBe(3);
    expect(err.message).toMatch(/^reflect-big \(fake\.chat\): gave up after 3 attempts: HTTP 503: The server had an error$/);
    expect(s.requests).toHaveLength(3);
  });

  it('a hung call times out per attempt, is retried, and fails as a timeout', async () => {
    const s = await start();
    s.script({ kind: 'hang' }, { kind: 'hang' });
    const err = await failure(lmOn(s, { timeoutMs: 100, maxRetries: 1 })('What is 1 + 1?'));
    expect(err.kind).toBe('timeout');
    expect(err.attempts).toBe(2);
    expect(err.message).toMatch(/gave up after 2 attempts: request timed out after 100 ms/);
    expect(s.requests).toHaveLength(2);
  });
});

describe('loud failures, not retried', () => {
  it('a 404 for a model the server does not have, and 400, 401: named with the status and the message, one request each', async () => {
    for (const status of [404, 400, 401]) {
      const s = await start({ stepFor: (_m, _n, model) => (model === 'task-typo' ? { kind: 'status', status, message: `The model \`${model}\` does not exist` } : undefined) });
      const err = await failure(chatOn(s, {}, 'task-typo')({ system: '', user: 'hi' }));
      expect(err.kind).toBe('http');
      expect(err.status).toBe(status);
      expect(err.attempts).toBe(1);
      expect(err.message).toBe(`task-typo (fake.chat): HTTP ${status}: The model \`task-typo\` does not exist`);
      expect(s.requests).toHaveLength(1);
      await s.close();
    }
  });

  it('a malformed body is malformed, an empty reply is empty with the dollars it still cost', async () => {
    const s = await start();
    s.script({ kind: 'malformed' }, { kind: 'empty', content: '' });
    const malformed = await failure(lmOn(s)('hi'));
    expect(malformed.kind).toBe('malformed');
    expect(s.requests).toHaveLength(1);
    const empty = await failure(lmOn(s)('hi'));
    expect(empty.kind).toBe('empty');
    expect(empty.message).toBe('reflect-big (fake.chat): empty reply (finish reason: stop)');
    const usage = fakeUsage([{ role: 'user', content: 'hi' }], '');
    expect(empty.costUsd).toBe(costOf({ promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens }, PRICES['reflect-big']!));
  });

  it('an error body that echoes the request headers does not leak the key', async () => {
    const s = await start();
    s.script({ kind: 'echo-headers', status: 400 });
    const err = await failure(lmOn(s)('hi'));
    expect(err.message).not.toContain('test-key');
    expect(err.message).toContain('[redacted]');
  });

  it('says plainly what it needs when given something other than an AI SDK model', () => {
    expect(() => createAiSdkChatModel('gpt-4.1-mini' as never)).toThrow(
      `createAiSdkChatModel needs an AI SDK language model, what provider('model-id') returns (with provider and modelId); got "gpt-4.1-mini"`,
    );
    expect(() => createAiSdkLanguageModel({ provider: 'p', modelId: 'm' }, { maxRetries: -1 })).toThrow('maxRetries must be a non-negative integer, got -1');
  });
});

describe('client-side rate limits', () => {
  it('tpm: a request waits on the clock while the minute holds too many tokens, counted from the reported usage', async () => {
    const s = await start();
    const clock = new SimulatedClock();
    s.script({ kind: 'reply', text: 'a', usage: { prompt_tokens: 900, completion_tokens: 100 } });
    const lm = lmOn(s, { clock, tpm: 1000 });
    await lm('What is 1 + 1?');
    const second = lm('What is 2 + 2?');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(s.requests).toHaveLength(1);
    clock.increment(60_000);
    expect((await second).text).toBe('Let me compute: 2 + 2 = 4.');
    expect(s.requests).toHaveLength(2);
  });
});

describe('cancellation and slots', () => {
  it('aborting cancels a request in flight', async () => {
    const s = await start();
    s.script({ kind: 'hang' });
    const controller = new AbortController();
    const call = lmOn(s)('hi', { signal: controller.signal });
    await s.waitForRequests(1);
    controller.abort(new Error('stopped by the user'));
    await expect(call).rejects.toThrow('stopped by the user');
  });

  it('takes a slot per attempt and holds none during the backoff', async () => {
    const s = await start();
    s.script({ kind: 'server-error' });
    let held = 0;
    const log: string[] = [];
    const clock: Clock = { ...systemClock, setTimeout: (fn, ms) => (log.push(`wait with ${held} held`), systemClock.setTimeout(fn, ms)) };
    const runInSlot = async <T>(fn: () => Promise<T>) => {
      held++;
      log.push('slot');
      try {
        return await fn();
      } finally {
        held--;
      }
    };
    await lmOn(s, { clock })('What is 3 + 3?', { signal: new AbortController().signal, runInSlot });
    expect(log).toEqual(['slot', 'wait with 0 held', 'slot']);
  });
});
