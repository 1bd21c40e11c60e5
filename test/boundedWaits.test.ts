// Waits that end and say so: a server's Retry-After is honoured only up to retryMaxDelayMs, every
// wait between attempts is told (a 'retry.scheduled' run event, a progress line when it is long),
// and the per-attempt timeout and retry limits are settable from a `run` config, validated.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { optimize } from '../src/index.js';
import { runCli } from '../src/cli/program.js';
import { createProgressDisplay } from '../src/cli/progressDisplay.js';
import { createChatAdapter } from '../src/adapters/chatAdapter.js';
import { createOpenAIChatModel, createOpenAILanguageModel } from '../src/lm/openaiLanguageModel.js';
import type { RetryNotice } from '../src/gepa/core/adapter.js';
import type { RunEvent } from '../src/gepa/core/runEvent.js';
import { startFakeOpenAIServer, type FakeOpenAIServer } from './support/fakeOpenAIServer.js';
import { memoryIo } from './support/memoryIo.js';
import { arithmeticRows } from './support/arithmeticRun.js';

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('Retry-After', () => {
  it('is capped by retryMaxDelayMs, and the wait is told with what the server asked for', async () => {
    server = await startFakeOpenAIServer();
    server.script({ kind: 'rate-limit', retryAfterSeconds: 3600 });
    const clock = new SimulatedClock();
    const model = createOpenAIChatModel({ baseURL: server.baseURL, apiKey: 'k', model: 'gpt-4.1-mini', clock, retryMaxDelayMs: 60_000 });
    const notices: RetryNotice[] = [];
    const call = model({ system: 's', user: 'What is 1 + 1?' }, { signal: new AbortController().signal, onRetry: (n) => notices.push(n) });
    await server.waitForRequests(1);
    while (notices.length === 0) await tick();
    expect(notices).toEqual([
      { model: 'gpt-4.1-mini', attempt: 1, maxAttempts: 7, delayMs: 60_000, reason: 'HTTP 429: Rate limit reached', requestedDelayMs: 3_600_000 },
    ]);
    clock.increment(59_999);
    await tick();
    expect(server.requests).toHaveLength(1);
    clock.increment(1);
    expect((await call).text).toBe('Let me compute: 1 + 1 = 2.');
    expect(server.requests).toHaveLength(2);
  });

  it('a wait within the cap is not marked as capped', async () => {
    server = await startFakeOpenAIServer();
    server.script({ kind: 'rate-limit', retryAfterMs: 3 });
    const notices: RetryNotice[] = [];
    const model = createOpenAIChatModel({ baseURL: server.baseURL, apiKey: 'k', model: 'gpt-4.1-mini', retryMaxDelayMs: 60_000 });
    await model({ system: 's', user: 'What is 1 + 1?' }, { signal: new AbortController().signal, onRetry: (n) => notices.push(n) });
    expect(notices).toEqual([{ model: 'gpt-4.1-mini', attempt: 1, maxAttempts: 7, delayMs: 3, reason: 'HTTP 429: Rate limit reached' }]);
  });

  it("reaches the run's events from the task model and the reflection model", async () => {
    // The first task call and the first reflection are rate-limited for an hour.
    let reflectionLimited = false;
    server = await startFakeOpenAIServer({
      stepFor: (messages) => {
        if (reflectionLimited || !messages.some((m) => m.content.startsWith('You are improving'))) return undefined;
        reflectionLimited = true;
        return { kind: 'rate-limit', retryAfterSeconds: 3600 };
      },
    });
    server.script({ kind: 'rate-limit', retryAfterSeconds: 3600 });
    // Caps of 1 ms keep the waits short in real time; what is asserted is the notice, not the time.
    const common = { baseURL: server.baseURL, apiKey: 'k', maxTokens: 200, retryBaseDelayMs: 1, retryMaxDelayMs: 1 };
    const events: RunEvent[] = [];
    const examples = [1, 2, 3].map((i) => ({ input: `What is ${i} + ${i}?`, answer: String(2 * i) }));
    await optimize({
      seedCandidate: { system_prompt: 'You are a calculator.' },
      trainset: examples,
      adapter: createChatAdapter({ taskModel: createOpenAIChatModel({ ...common, model: 'gpt-4.1-mini' }), metric: 'exact-match' }),
      reflectionLm: createOpenAILanguageModel({ ...common, model: 'gpt-5-mini' }),
      maxMetricCalls: 12,
      onEvent: (e) => events.push(e),
    });
    const retries = events.filter((e) => e.type === 'retry.scheduled');
    expect(retries).toEqual([
      { type: 'retry.scheduled', model: 'gpt-4.1-mini', attempt: 1, maxAttempts: 7, delayMs: 1, reason: 'HTTP 429: Rate limit reached', requestedDelayMs: 3_600_000 },
      { type: 'retry.scheduled', model: 'gpt-5-mini', attempt: 1, maxAttempts: 7, delayMs: 1, reason: 'HTTP 429: Rate limit reached', requestedDelayMs: 3_600_000 },
    ]);
  });

  it('a long wait is a progress line; a short backoff is not', () => {
    let text = '';
    const stream = new Writable({
      write(chunk: Buffer | string, _encoding, callback) {
        text += chunk.toString();
        callback();
      },
    });
    const display = createProgressDisplay({ mode: 'lines', stream, workers: 4, budget: { maxMetricCalls: 10 }, clock: new SimulatedClock() });
    const retry = { type: 'retry.scheduled', model: 'gpt-4.1-mini', attempt: 2, maxAttempts: 7, reason: 'HTTP 429: Rate limit reached' } as const;
    display.onEvent({ ...retry, delayMs: 1_500 });
    display.onEvent({ ...retry, delayMs: 60_000, requestedDelayMs: 3_600_000 });
    expect(text).toBe(
      'retrying gpt-4.1-mini in 1.0 min (attempt 2 of 7 failed: HTTP 429: Rate limit reached); the server asked for 1.0 h, capped by retryMaxDelayMs\n',
    );
  });
});

describe('a run config sets the request timeout and the retries', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gepa-waits-'));
    await writeFile(join(dir, 'train.jsonl'), arithmeticRows([[1, 2], [3, 4], [5, 6], [7, 8]]));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const config = async (extra: Record<string, unknown>) => {
    const path = join(dir, 'run.json');
    const base = { seedCandidate: { system_prompt: 'Answer.' }, trainset: 'train.jsonl', taskModel: 'gpt-4.1-mini', reflectionModel: 'gpt-5-mini', metric: 'exact-match', maxMetricCalls: 20, workers: 2 };
    await writeFile(path, JSON.stringify({ ...base, ...extra }));
    return path;
  };

  it('requestTimeoutMs is the timeout of every request', async () => {
    server = await startFakeOpenAIServer({ models: ['gpt-4.1-mini', 'gpt-5-mini'] });
    const io = memoryIo({ env: { OPENAI_BASE_URL: server.baseURL } });
    expect(await runCli(['run', await config({ requestTimeoutMs: 30_000 }), '--json'], io)).toBe(0);
    const chats = server.requests.filter((r) => r.path.endsWith('/chat/completions'));
    expect(chats.length).toBeGreaterThan(4);
    expect(new Set(chats.map((r) => r.timeoutHeader))).toEqual(new Set(['30']));
  });

  it.each([
    [{ requestTimeoutMs: 0 }, 'requestTimeoutMs: Too small'],
    [{ requestTimeoutMs: 1.5 }, 'requestTimeoutMs: Invalid input: expected int'],
    [{ maxRetries: -1 }, 'maxRetries: Too small'],
    [{ maxRetries: 1000 }, 'maxRetries: Too big'],
    [{ retryMaxDelayMs: 'soon' }, 'retryMaxDelayMs: Invalid input: expected number'],
  ])('%o is refused with exit 2, naming the field', async (extra, message) => {
    const io = memoryIo({ env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' } });
    expect(await runCli(['run', await config(extra)], io)).toBe(2);
    expect(io.err()).toContain(message);
  });
});
