// The endpoint check before a run is a request like any other: a provider that answers 429 (or
// 5xx) to the first requests is waited for under the retry rules, and the run completes; one
// that keeps failing ends the check loudly after the configured tries; a base URL carrying
// user:password@ is named as the cause instead of "check that the server is running".
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/program.js';
import { checkEndpoint } from '../src/lm/openaiLanguageModel.js';
import type { OptimizeResult } from '../src/gepa/core/optimizeResult.js';
import { startFakeOpenAIServer } from './support/fakeOpenAIServer.js';
import { memoryIo } from './support/memoryIo.js';
import { ARITHMETIC_RUN_CONFIG, writeArithmeticDataset } from './support/arithmeticRun.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gepa-check-'));
  await writeArithmeticDataset(dir);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a provider that answers 429 to the first three requests', () => {
  it.each([
    ['with a /models route', ['gpt-4.1-mini', 'gpt-5-mini']],
    ['without one (the check is a one-token chat request)', null],
  ])('%s: the run completes, exit 0, each wait announced', async (_name, models) => {
    const server = await startFakeOpenAIServer({ models, rateLimitFirst: { count: 3, retryAfterMs: 5 } });
    try {
      const config = join(dir, 'flaky.json');
      await writeFile(config, JSON.stringify({ ...ARITHMETIC_RUN_CONFIG, maxMetricCalls: 20 }));
      const io = memoryIo({ env: { OPENAI_BASE_URL: server.baseURL } });
      expect(await runCli(['run', config, '--json'], io)).toBe(0);
      const result = JSON.parse(io.out().trimEnd().split('\n').at(-1) ?? '') as OptimizeResult;
      expect(result.metricCalls).toBeGreaterThan(0);
      expect(server.requests.slice(0, 3).map((r) => r.step)).toEqual(['rate-limit', 'rate-limit', 'rate-limit']);
      expect(io.err()).toContain('checking the endpoint: HTTP 429: Rate limit reached; trying again in 0.0 s (attempt 2 of 7)');
      expect(io.err()).toContain('(attempt 4 of 7)');
    } finally {
      await server.close();
    }
  });
});

describe('checkEndpoint', () => {
  it('gives up after maxRetries + 1 attempts, saying how many, with the last answer', async () => {
    const server = await startFakeOpenAIServer({ rateLimitFirst: { count: 100, retryAfterMs: 1 } });
    try {
      await expect(checkEndpoint({ baseURL: server.baseURL, maxRetries: 2 })).rejects.toThrow(
        `The endpoint at ${server.baseURL} answered HTTP 429 (still, after 3 attempts): Rate limit reached`,
      );
      expect(server.requests).toHaveLength(3);
    } finally {
      await server.close();
    }
  });

  it('caps the server\'s Retry-After at retryMaxDelayMs', async () => {
    const server = await startFakeOpenAIServer({ rateLimitFirst: { count: 1, retryAfterMs: 3_600_000 } });
    const delays: number[] = [];
    try {
      await checkEndpoint({ baseURL: server.baseURL, retryMaxDelayMs: 10, onRetry: (retry) => void delays.push(retry.delayMs) });
      expect(delays).toEqual([10]);
    } finally {
      await server.close();
    }
  });

  it('retries a dropped connection and a 500, as every call does', async () => {
    const server = await startFakeOpenAIServer({ models: null });
    const retries: string[] = [];
    try {
      server.script({ kind: 'drop' }, { kind: 'server-error' });
      await checkEndpoint({ baseURL: server.baseURL, model: 'gpt-4.1-mini', retryBaseDelayMs: 1, onRetry: (r) => void retries.push(r.reason) });
      expect(retries).toHaveLength(2);
      expect(retries[0]).toContain('connection failed');
      expect(retries[1]).toContain('HTTP 500');
      expect(server.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => r.step)).toEqual(['drop', 'server-error', 'reply']);
    } finally {
      await server.close();
    }
  });

  it('does not retry a refused connection or a port fetch will not use: the user hears at once', async () => {
    // A port that was just free: nothing listens there.
    const closed = await startFakeOpenAIServer();
    const refusedURL = closed.baseURL;
    await closed.close();
    for (const baseURL of [refusedURL, 'http://127.0.0.1:9/v1']) {
      const retries: unknown[] = [];
      await expect(checkEndpoint({ baseURL, onRetry: (r) => void retries.push(r) })).rejects.toThrow('Cannot reach');
      expect(retries, baseURL).toEqual([]);
    }
  });

  it('names user:password@ in the base URL as the cause, masked', async () => {
    const error = (await checkEndpoint({ baseURL: 'http://alice:s3cret@127.0.0.1:9/v1' }).catch((e: unknown) => e)) as Error;
    expect(error.message).toContain('carries a user name or password');
    expect(error.message).toContain('put the key in OPENAI_API_KEY');
    expect(error.message).not.toContain('s3cret');
    expect(error.message).not.toContain('check that the server is running');
  });
});
