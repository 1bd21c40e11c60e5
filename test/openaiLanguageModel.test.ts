// The OpenAI-compatible language model against a real loopback server: replies, dollars,
// retries and their waits, errors that name what went wrong, cancellation, the per-attempt slot
// seam, client-side rate limits, the endpoint preflight and `openai:<model>` resolution.
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SimulatedClock } from 'xstate';
import { systemClock } from '../src/clock.js';
import {
  backoffDelayMs,
  checkEndpoint,
  createOpenAIChatModel,
  createOpenAILanguageModel,
  retryAfterMs,
  type OpenAIModelOptions,
} from '../src/lm/openaiLanguageModel.js';
import { builtInPrices, costOf, hasPrice, priceFor } from '../src/lm/priceTable.js';
import { requestKey } from '../src/lm/responseCache.js';
import { resolveLanguageModel } from '../src/lm/resolveLanguageModel.js';
import { managesOwnSlots } from '../src/lm/slotAwareModel.js';
import { Rng } from '../src/gepa/core/rng.js';
import type { Clock } from '../src/clock.js';
import { failure, recordingClock } from './support/modelCalls.js';
import { fakeUsage, startFakeOpenAIServer, type FakeOpenAIServer, type FakeServerOptions } from './support/fakeOpenAIServer.js';

const MINI = builtInPrices['gpt-4.1-mini']!;

let server: FakeOpenAIServer;
async function start(options: FakeServerOptions = {}) {
  server = await startFakeOpenAIServer(options);
  return server;
}
afterEach(async () => {
  await server?.close();
});

const lmOn = (s: FakeOpenAIServer, options: Partial<OpenAIModelOptions> = {}) =>
  createOpenAILanguageModel({
    model: 'gpt-4.1-mini',
    baseURL: s.baseURL,
    apiKey: 'test-key',
    retryBaseDelayMs: 1,
    retryMaxDelayMs: 4,
    ...options,
  });

describe('replies and dollars', () => {
  it('returns the text, the reported usage and usage x list price', async () => {
    const s = await start();
    s.script({ kind: 'reply', text: 'Paris', usage: { prompt_tokens: 1200, completion_tokens: 300 } });
    const lm = lmOn(s, { system: 'Be brief.', temperature: 0, maxTokens: 50 });
    const reply = await lm('Capital of France?');
    expect(reply).toEqual({
      text: 'Paris',
      usage: { promptTokens: 1200, completionTokens: 300 },
      costUsd: (1200 * 0.4 + 300 * 1.6) / 1e6,
    });
    const body = s.requests[0]!.body!;
    expect(body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Capital of France?' },
    ]);
    // A non-openai.com endpoint gets the widely supported max_tokens field.
    expect(body).toMatchObject({ model: 'gpt-4.1-mini', temperature: 0, max_tokens: 50 });
    expect(s.requests[0]!.authorization).toBe('Bearer test-key');
  });

  it('has no dollar figure for a model with no price, unless the caller supplies one', async () => {
    const s = await start();
    const reply = await lmOn(s, { model: 'my-local-llama' })('What is 2 + 2?');
    expect(reply.costUsd).toBeUndefined();
    expect(reply.usage).toEqual({ promptTokens: 4, completionTokens: 7 });
    expect(hasPrice('my-local-llama')).toBe(false);

    const prices = { 'my-local-llama': { inputPerMTok: 1, outputPerMTok: 2 } };
    const priced = await lmOn(s, { model: 'my-local-llama', prices })('What is 2 + 2?');
    expect(priced.costUsd).toBe((4 * 1 + 7 * 2) / 1e6);
    expect(hasPrice('my-local-llama', prices)).toBe(true);
  });

  it('charges by character estimate when the server reports no usage', async () => {
    const s = await start();
    s.script({ kind: 'no-usage', text: 'abcdef' });
    const reply = await lmOn(s)('x'.repeat(30));
    expect(reply.usage).toBeUndefined();
    // prompt: ceil(30 / 3) + 8 message overhead; completion: ceil(6 / 3).
    expect(reply.costUsd).toBe(costOf({ promptTokens: 18, completionTokens: 2 }, MINI));
  });

  it('sums to exactly the server-reported usage x prices under random 429s and 500s', async () => {
    const faults = { seed: 7, rateLimit: 0.2, serverError: 0.05, retryAfterMs: 1 };
    const s = await start({ faults });
    const lm = lmOn(s, { maxRetries: 20 });
    const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => lm(`What is ${i} + ${i}?`)));

    // The server's fault sequence is fixed by the seed: requests until the 30th success.
    const rng = new Rng(7);
    let expectedRequests = 0;
    for (let ok = 0; ok < 30; expectedRequests++) if (rng.next() >= 0.25) ok++;
    expect(s.requests).toHaveLength(expectedRequests);
    expect(expectedRequests).toBeGreaterThan(30);

    expect(replies.map((r) => r.text)).toEqual(
      Array.from({ length: 30 }, (_, i) => `Let me compute: ${i} + ${i} = ${2 * i}.`),
    );
    const paid = replies.reduce((sum, r) => sum + r.costUsd!, 0);
    const reported = s.usageReported.reduce(
      (sum, u) => sum + costOf({ promptTokens: u.prompt_tokens, completionTokens: u.completion_tokens }, MINI),
      0,
    );
    expect(s.usageReported).toHaveLength(30);
    expect(paid).toBeCloseTo(reported, 15);
  });

  it('estimates the worst-case dollars of a call before making it', () => {
    const lm = createOpenAILanguageModel({ model: 'gpt-4.1-mini', baseURL: 'http://127.0.0.1:9/v1', system: 'sys', maxTokens: 100 });
    // A bound, not a guess: a 64-token template preamble, then per message its UTF-8 bytes + 8
    // (system 3 + 8, prompt 30 + 8); completion: maxTokens.
    expect(lm.estimateMaxCostUsd!('x'.repeat(30))).toBe(costOf({ promptTokens: 64 + 11 + 38, completionTokens: 100 }, MINI));
    // Multi-byte text counts its bytes.
    expect(lm.estimateMaxCostUsd!('é'.repeat(15))).toBe(costOf({ promptTokens: 64 + 11 + 38, completionTokens: 100 }, MINI));
    const unpriced = createOpenAILanguageModel({ model: 'local', baseURL: 'http://127.0.0.1:9/v1' });
    expect('estimateMaxCostUsd' in unpriced).toBe(false);
  });

  it('prices dated snapshots like their alias, and lets overrides win', () => {
    expect(priceFor('gpt-4.1-mini-2025-04-14')).toEqual(MINI);
    expect(priceFor('gpt-4.1-mini', { 'gpt-4.1-mini': { inputPerMTok: 9, outputPerMTok: 9 } })).toEqual({
      inputPerMTok: 9,
      outputPerMTok: 9,
    });
    expect(priceFor('gpt-4.1-mega')).toBeUndefined();
  });
});

describe('retries', () => {
  it('waits what retry-after says on a 429, then succeeds', async () => {
    const s = await start();
    s.script({ kind: 'rate-limit', retryAfterSeconds: 0.03 }, { kind: 'rate-limit', retryAfterMs: 7 });
    const clock = recordingClock();
    const reply = await lmOn(s, { clock, retryMaxDelayMs: 60_000 })('What is 1 + 1?');
    expect(reply.text).toBe('Let me compute: 1 + 1 = 2.');
    expect(clock.waits).toEqual([30, 7]);
    expect(s.requests.map((r) => r.step)).toEqual(['rate-limit', 'rate-limit', 'reply']);
  });

  it('backs off exponentially with deterministic jitter after a 500, then succeeds', async () => {
    const s = await start();
    s.script({ kind: 'server-error' }, { kind: 'server-error', status: 503 });
    const clock = recordingClock();
    const reply = await lmOn(s, { clock, retryBaseDelayMs: 2, retryMaxDelayMs: 100 })('What is 3 + 4?');
    expect(reply.text).toBe('Let me compute: 3 + 4 = 7.');
    const key = requestKey(s.requests[0]!.body);
    expect(clock.waits).toEqual([backoffDelayMs(1, key, 2, 100), backoffDelayMs(2, key, 2, 100)]);
    expect(clock.waits[0]).toBeGreaterThanOrEqual(1);
    expect(clock.waits[0]).toBeLessThan(2);
    expect(clock.waits[1]).toBeGreaterThanOrEqual(2);
    expect(clock.waits[1]).toBeLessThan(4);
  });

  it('retries a connection cut in the middle of the body', async () => {
    const s = await start();
    s.script({ kind: 'drop' });
    const reply = await lmOn(s)('What is 9 - 4?');
    expect(reply.text).toBe('Let me compute: 9 - 4 = 5.');
    expect(s.requests.map((r) => r.step)).toEqual(['drop', 'reply']);
  });

  it('reads retry-after as seconds, milliseconds or an HTTP date against the server clock', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }))).toBe(2000);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '150', 'retry-after': '2' }))).toBe(150);
    expect(
      retryAfterMs(
        new Headers({ 'retry-after': 'Wed, 21 Oct 2015 07:28:05 GMT', date: 'Wed, 21 Oct 2015 07:28:00 GMT' }),
      ),
    ).toBe(5000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
  });

  it('gives up after maxRetries timeouts with an error that says so', async () => {
    const s = await start();
    s.script({ kind: 'hang' }, { kind: 'hang' });
    const err = await failure(lmOn(s, { timeoutMs: 100, maxRetries: 1 })('What is 1 + 1?'));
    expect(err.kind).toBe('timeout');
    expect(err.attempts).toBe(2);
    expect(err.message).toMatch(/gave up after 2 attempts: request timed out after 100 ms/);
    expect(s.requests).toHaveLength(2);
  });

  it('does not retry 400, 401, 403 or 404, and names the status and the message', async () => {
    for (const status of [400, 401, 403, 404]) {
      const s = await start();
      s.script({ kind: 'status', status, message: `problem ${status}` });
      const err = await failure(lmOn(s)('hi'));
      expect(err.kind).toBe('http');
      expect(err.status).toBe(status);
      expect(err.attempts).toBe(1);
      expect(err.message).toContain(`HTTP ${status}: problem ${status}`);
      expect(err.message).toContain('gpt-4.1-mini');
      expect(s.requests).toHaveLength(1);
      await s.close();
    }
  });
});

describe('replies that go wrong', () => {
  it('reports a malformed JSON body without retrying', async () => {
    const s = await start();
    s.script({ kind: 'malformed' });
    const err = await failure(lmOn(s)('hi'));
    expect(err.kind).toBe('malformed');
    expect(err.message).toMatch(/malformed JSON in the reply body/);
    expect(s.requests).toHaveLength(1);
  });

  it('reports empty content, "" or null, with the dollars it still cost', async () => {
    const s = await start();
    s.script({ kind: 'empty', content: '' }, { kind: 'empty', content: null, finishReason: 'length' });
    const first = await failure(lmOn(s)('hi'));
    expect(first.kind).toBe('empty');
    expect(first.message).toMatch(/: empty reply \(finish_reason: stop\)$/);
    const usage = fakeUsage([{ role: 'user', content: 'hi' }], '');
    expect(first.costUsd).toBe(costOf({ promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens }, MINI));
    const second = await failure(lmOn(s)('hi'));
    expect(second.message).toMatch(/empty reply \(finish_reason: length\)/);
  });

  it('reports a refusal with its text', async () => {
    const s = await start();
    s.script({ kind: 'refusal', refusal: 'I cannot help with that.' });
    const err = await failure(lmOn(s)('hi'));
    expect(err.kind).toBe('refusal');
    expect(err.message).toContain('the model refused: I cannot help with that.');
  });
});

describe('cancellation', () => {
  it('aborting cancels a request in flight', async () => {
    const s = await start();
    s.script({ kind: 'hang' });
    const controller = new AbortController();
    const call = lmOn(s)('hi', { signal: controller.signal });
    await s.waitForRequests(1);
    controller.abort(new Error('stopped by the user'));
    await expect(call).rejects.toThrow('stopped by the user');
  });

  it('aborting cancels a backoff wait', async () => {
    const s = await start();
    s.script({ kind: 'rate-limit', retryAfterSeconds: 3600 });
    const controller = new AbortController();
    const clock = recordingClock();
    const call = lmOn(s, { clock, retryMaxDelayMs: 60_000 })('hi', { signal: controller.signal });
    await s.waitForRequests(1);
    // Retry-After: 3600 is honoured only up to retryMaxDelayMs (60 s by default).
    await vi.waitFor(() => expect(clock.waits).toEqual([60_000]));
    controller.abort(new Error('stopped'));
    await expect(call).rejects.toThrow('stopped');
    expect(s.requests).toHaveLength(1);
  });
});

describe('the slot seam', () => {
  it('takes a slot per attempt, holds it only while the request is in flight, never while waiting', async () => {
    let inSlot = 0;
    const arrivedInSlot: number[] = [];
    const s = await start({ onRequest: () => arrivedInSlot.push(inSlot) });
    s.script({ kind: 'rate-limit', retryAfterMs: 5 }, { kind: 'server-error' });
    let slotCalls = 0;
    const runInSlot = async <T>(fn: () => Promise<T>): Promise<T> => {
      slotCalls++;
      inSlot++;
      try {
        return await fn();
      } finally {
        inSlot--;
      }
    };
    const waitsInSlot: number[] = [];
    const clock: Clock = {
      now: () => systemClock.now(),
      setTimeout: (fn, ms) => {
        waitsInSlot.push(inSlot);
        return systemClock.setTimeout(fn, ms);
      },
      clearTimeout: (id) => systemClock.clearTimeout(id),
    };
    const lm = lmOn(s, { clock });
    expect(managesOwnSlots(lm)).toBe(true);
    expect(lm.managesSlots).toBe(true);
    const reply = await lm('What is 2 + 2?', { signal: new AbortController().signal, runInSlot });
    expect(reply.text).toBe('Let me compute: 2 + 2 = 4.');
    expect(slotCalls).toBe(3);
    expect(arrivedInSlot).toEqual([1, 1, 1]);
    expect(waitsInSlot).toEqual([0, 0]);
    expect(inSlot).toBe(0);
  });

  it('works without a slot runner too', async () => {
    const s = await start();
    expect((await lmOn(s)('What is 5 * 6?', { signal: new AbortController().signal })).text).toBe(
      'Let me compute: 5 * 6 = 30.',
    );
  });
});

describe('client-side rate limits', () => {
  it('rpm: the third request in a minute waits until the first leaves the window', async () => {
    const s = await start();
    const clock = new SimulatedClock();
    const lm = lmOn(s, { clock, rpm: 2 });
    const calls = [lm('What is 1 + 1?'), lm('What is 2 + 2?'), lm('What is 3 + 3?')];
    await Promise.all(calls.slice(0, 2));
    await new Promise((resolve) => setImmediate(resolve));
    expect(s.requests).toHaveLength(2);
    clock.increment(59_999);
    await new Promise((resolve) => setImmediate(resolve));
    expect(s.requests).toHaveLength(2);
    clock.increment(1);
    expect((await calls[2]!).text).toBe('Let me compute: 3 + 3 = 6.');
    expect(s.requests).toHaveLength(3);
  });

  it('tpm: a request waits while the minute holds too many tokens, counted from real usage', async () => {
    const s = await start();
    s.script(
      { kind: 'reply', text: 'a', usage: { prompt_tokens: 60, completion_tokens: 30 } },
      { kind: 'reply', text: 'b', usage: { prompt_tokens: 5, completion_tokens: 5 } },
    );
    const clock = new SimulatedClock();
    const lm = lmOn(s, { clock, tpm: 100 });
    await lm('first'); // 90 tokens reported
    clock.increment(10_000);
    const second = lm('second'); // estimate ceil(6 / 3) + 8 = 10 tokens: 90 + 10 fits
    expect((await second).text).toBe('b');
    const third = lm('third'); // 90 + 10 + 10 > 100: waits for the first to leave, at t = 60 s
    await new Promise((resolve) => setImmediate(resolve));
    expect(s.requests).toHaveLength(2);
    clock.increment(50_000);
    await third;
    expect(s.requests).toHaveLength(3);
  });
});

describe('chat model', () => {
  it('sends the system prompt and the user message, and omits an empty system prompt', async () => {
    const s = await start();
    const chat = createOpenAIChatModel({ model: 'gpt-4.1-mini', baseURL: s.baseURL });
    await chat({ system: 'Reply with only the number.', user: 'What is 6 * 7?' }).then((r) => expect(r.text).toBe('42'));
    await chat({ system: '', user: 'What is 6 * 7?' });
    expect(s.requests.map((r) => r.body!.messages!.map((m) => m.role))).toEqual([['system', 'user'], ['user']]);
    expect(chat.estimateMaxCostUsd!({ system: 'abc', user: 'abcdef' })).toBe(
      costOf({ promptTokens: 64 + 3 + 8 + 6 + 8, completionTokens: 16_384 }, MINI),
    );
  });
});

describe('endpoint preflight and keys', () => {
  beforeEach(() => {
    vi.stubEnv('OPENAI_API_KEY', '');
    vi.stubEnv('OPENAI_BASE_URL', '');
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('fails before any work when openai.com has no key', async () => {
    await expect(checkEndpoint({})).rejects.toThrow(/No API key for https:\/\/api\.openai\.com\/v1: set OPENAI_API_KEY/);
    expect(() => createOpenAILanguageModel({ model: 'gpt-5-mini' })).toThrow(/set OPENAI_API_KEY/);
    expect(() => resolveLanguageModel('openai:gpt-5-mini')).toThrow(/set OPENAI_API_KEY/);
  });

  it('lets a local server go without a key, and lists its models', async () => {
    const s = await start({ models: ['llama-3', 'qwen'] });
    vi.stubEnv('OPENAI_BASE_URL', s.baseURL);
    await expect(checkEndpoint({ model: 'qwen' })).resolves.toEqual({
      baseURL: s.baseURL,
      models: ['llama-3', 'qwen'],
      modelListed: true,
    });
    expect(s.requests[0]!.authorization).toBe('Bearer not-needed');
  });

  it('says the endpoint is unreachable', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    await expect(checkEndpoint({ baseURL: `http://127.0.0.1:${port}/v1` })).rejects.toThrow(
      new RegExp(`Cannot reach the OpenAI-compatible endpoint at http://127\\.0\\.0\\.1:${port}/v1 \\(.*ECONNREFUSED`),
    );
  });

  it('says the key was rejected', async () => {
    const s = await start({ apiKey: 'right-key' });
    await expect(checkEndpoint({ baseURL: s.baseURL, apiKey: 'wrong-key' })).rejects.toThrow(
      /rejected the API key \(HTTP 401: Incorrect API key provided\); check OPENAI_API_KEY/,
    );
  });

  it('falls back to a one-token request when the server has no /models route', async () => {
    const s = await start({ models: null });
    await expect(checkEndpoint({ baseURL: s.baseURL, model: 'fake' })).resolves.toEqual({ baseURL: s.baseURL });
    expect(s.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/models', 'POST /v1/chat/completions']);
    expect(s.requests[1]!.body).toMatchObject({ model: 'fake', max_tokens: 1 });
  });
});

describe('resolveLanguageModel', () => {
  it('passes functions through, builds openai:<model>, rejects anything else', async () => {
    const fn = async () => 'hi';
    expect(resolveLanguageModel(fn)).toBe(fn);
    const s = await start();
    const lm = resolveLanguageModel('openai:gpt-4.1-mini', { baseURL: s.baseURL });
    expect(managesOwnSlots(lm)).toBe(true);
    const reply = await lm('What is 2 * 3?', { signal: new AbortController().signal });
    expect(reply).toMatchObject({ text: 'Let me compute: 2 * 3 = 6.' });
    expect(s.requests[0]!.body!.model).toBe('gpt-4.1-mini');
    expect(() => resolveLanguageModel('anthropic:claude')).toThrow(
      'Unknown language model "anthropic:claude": expected a function, "openai:<model>" (e.g. "openai:gpt-4.1-mini") or "local:<path to a .gguf>"',
    );
    expect(() => resolveLanguageModel('openai:')).toThrow(/names no model/);
  });
});
