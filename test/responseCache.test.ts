// The on-disk response cache: keys that depend on the request's content only, atomic entries,
// unreadable entries as misses, and a re-run of the same configuration that costs nothing
// (original usage, cost 0) while failed replies are never cached.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAILanguageModel, LanguageModelError } from '../src/lm/openaiLanguageModel.js';
import { builtInPrices, costOf } from '../src/lm/priceTable.js';
import { createResponseCache, requestKey } from '../src/lm/responseCache.js';
import { startFakeOpenAIServer, type FakeOpenAIServer } from './support/fakeOpenAIServer.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gepa-cache-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('requestKey', () => {
  it('depends on content, not on key order', () => {
    const request = { model: 'm', messages: [{ role: 'user', content: 'hi' }], temperature: 0 };
    const key = requestKey(request);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(requestKey({ temperature: 0, messages: [{ content: 'hi', role: 'user' }], model: 'm' })).toBe(key);
    expect(requestKey({ ...request, temperature: 1 })).not.toBe(key);
    expect(requestKey({ ...request, model: 'n' })).not.toBe(key);
    expect(requestKey({ ...request, messages: [{ role: 'user', content: 'hi!' }] })).not.toBe(key);
  });
});

describe('createResponseCache', () => {
  it('stores one JSON file per key, sharded, with no temp file left behind', async () => {
    const cache = createResponseCache(dir);
    const key = requestKey('a request');
    expect(await cache.get(key)).toBeUndefined();
    await cache.set(key, { text: 'hello', usage: { promptTokens: 3, completionTokens: 1 } }, { asked: 'a request' });
    expect(await cache.get(key)).toEqual({ text: 'hello', usage: { promptTokens: 3, completionTokens: 1 } });
    expect(await readdir(join(dir, key.slice(0, 2)))).toEqual([`${key}.json`]);
    const stored = JSON.parse(await readFile(join(dir, key.slice(0, 2), `${key}.json`), 'utf8'));
    expect(stored).toMatchObject({ version: 1, key, request: { asked: 'a request' } });
    expect(cache.stats()).toEqual({ hits: 1, misses: 1, writes: 1, writeErrors: 0 });
  });

  it('treats an unreadable entry as a miss', async () => {
    const cache = createResponseCache(dir);
    const key = requestKey('x');
    await cache.set(key, { text: 'fine' });
    await writeFile(join(dir, key.slice(0, 2), `${key}.json`), '{"version": 1, "key": "trunc');
    expect(await cache.get(key)).toBeUndefined();
  });

  it('never throws on a failed write', async () => {
    const blocked = join(dir, 'a-file');
    await writeFile(blocked, '');
    const cache = createResponseCache(blocked);
    await expect(cache.set(requestKey('x'), { text: 't' })).resolves.toBeUndefined();
    expect(cache.stats().writeErrors).toBe(1);
  });
});

describe('a language model with a cache', () => {
  let server: FakeOpenAIServer;
  afterEach(async () => {
    await server.close();
  });

  it('answers a repeated request from disk, reporting the original usage at cost 0', async () => {
    server = await startFakeOpenAIServer();
    server.script({ kind: 'reply', text: 'Paris', usage: { prompt_tokens: 50, completion_tokens: 5 } });
    const options = { model: 'gpt-4.1-mini', baseURL: server.baseURL, temperature: 0 };
    const first = await createOpenAILanguageModel({ ...options, cache: createResponseCache(dir) })('Capital of France?');
    expect(first.costUsd).toBe(costOf({ promptTokens: 50, completionTokens: 5 }, builtInPrices['gpt-4.1-mini']!));

    // A re-run: new model, new cache object, same directory.
    const rerun = createOpenAILanguageModel({ ...options, cache: createResponseCache(dir) });
    expect(await rerun('Capital of France?')).toEqual({
      text: 'Paris',
      usage: { promptTokens: 50, completionTokens: 5 },
      costUsd: 0,
    });
    expect(server.requests).toHaveLength(1);

    // Different sampling parameters are a different request.
    await createOpenAILanguageModel({ ...options, temperature: 1, cache: createResponseCache(dir) })('Capital of France?');
    expect(server.requests).toHaveLength(2);
  });

  it('does not cache a failed reply', async () => {
    server = await startFakeOpenAIServer();
    server.script({ kind: 'empty' }, { kind: 'reply', text: 'second time lucky' });
    const cache = createResponseCache(dir);
    const lm = createOpenAILanguageModel({ model: 'local', baseURL: server.baseURL, cache });
    await expect(lm('hi')).rejects.toBeInstanceOf(LanguageModelError);
    expect((await lm('hi')).text).toBe('second time lucky');
    expect((await lm('hi')).text).toBe('second time lucky');
    expect(server.requests).toHaveLength(2);
    expect(cache.stats()).toEqual({ hits: 1, misses: 2, writes: 1, writeErrors: 0 });
  });
});
