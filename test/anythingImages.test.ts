// Images in side information: they reach a model that accepts images as image parts (an
// OpenAI-compatible server on 127.0.0.1 receives them as image_url parts, where they stand in the
// prompt), and a model that cannot take them is refused before any call when `images: true`.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { ConfigError, image, optimizeAnything, RunFailedError, type LanguageModel } from '../src/index.js';
import { createAiSdkLanguageModel, createOpenAILanguageModel } from '../src/entries/models.js';
import { startFakeOpenAIServer, type FakeOpenAIServer } from './support/fakeOpenAIServer.js';
import { appendingReflection, currentArtifact } from './support/anythingTask.js';

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
const PNG_URL = `data:image/png;base64,${Buffer.from(PNG).toString('base64')}`;

let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await startFakeOpenAIServer({
    responder: (messages) => {
      const parts = messages.at(-1)?.content as unknown as Array<{ type: string; text?: string }>;
      return '```\n' + currentArtifact(parts[0]?.text ?? '') + ' drawn\n```';
    },
  });
});
afterAll(() => server.close());

describe('images in side information', () => {
  it('reach an OpenAI-compatible server as image parts, right after their marker in the prompt', async () => {
    const result = await optimizeAnything({
      seedCandidate: 'circle',
      evaluator: (candidate) => ({ score: candidate.length / 100, sideInfo: { Render: image(PNG), Note: 'the render above' } }),
      reflectionLm: createOpenAILanguageModel({ model: 'vision-model', baseURL: server.baseURL, apiKey: 'test-key' }),
      images: true,
      maxMetricCalls: 3,
    });
    expect(result.bestCandidate).toBe('circle drawn');
    const content = server.requests[0]?.body?.messages?.[0]?.content as unknown as Array<Record<string, unknown>>;
    expect(content.map((p) => p.type)).toEqual(['text', 'image_url', 'text']);
    expect(content[0]?.text).toMatch(/## Render\n\[image: image\/png, 1 kB, sha256 [0-9a-f]{16}\]$/);
    expect(content[1]).toEqual({ type: 'image_url', image_url: { url: PNG_URL } });
    expect(content[2]?.text).toMatch(/^\n\n## Note\nthe render above/);
  });

  it('reach an AI SDK model as image parts (its OpenAI-compatible provider sends image_url parts)', async () => {
    const before = server.requests.length;
    const provider = createOpenAICompatible({ name: 'fake', baseURL: server.baseURL, apiKey: 'test-key' });
    const result = await optimizeAnything({
      seedCandidate: 'square',
      evaluator: (candidate) => ({ score: candidate.length / 100, sideInfo: { Render: image(PNG) } }),
      reflectionLm: createAiSdkLanguageModel(provider('vision-model')),
      images: true,
      maxMetricCalls: 3,
    });
    expect(result.bestCandidate).toBe('square drawn');
    const content = server.requests[before]?.body?.messages?.[0]?.content as unknown as Array<Record<string, unknown>>;
    expect(content.map((p) => p.type)).toEqual(['text', 'image_url', 'text']);
    expect(content[1]).toEqual({ type: 'image_url', image_url: { url: PNG_URL } });
  });

  it('a plain function model is refused before any call', async () => {
    let calls = 0;
    const run = optimizeAnything({ seedCandidate: 'c', evaluator: () => ++calls, reflectionLm: appendingReflection(), images: true, maxMetricCalls: 3 });
    await expect(run).rejects.toThrow(ConfigError);
    await expect(run).rejects.toThrow('reflectionLm: cannot take images');
    expect(calls).toBe(0);
  });

  it('a local GGUF model is refused before any call (the file is never loaded)', async () => {
    const emptyGguf = join(mkdtempSync(join(tmpdir(), 'gepa-gguf-')), 'never-loaded.gguf'); // only its magic bytes
    writeFileSync(emptyGguf, 'GGUF');
    let calls = 0;
    const run = optimizeAnything({ seedCandidate: 'c', evaluator: () => ++calls, reflectionLm: `local:${emptyGguf}`, images: true, maxMetricCalls: 3 });
    await expect(run).rejects.toThrow('reflectionLm: cannot take images');
    expect(calls).toBe(0);
  });

  it('a refiner model that cannot take images is refused too', async () => {
    const run = optimizeAnything({
      seedCandidate: 'c',
      evaluator: () => 1,
      reflectionLm: createOpenAILanguageModel({ model: 'vision-model', baseURL: server.baseURL, apiKey: 'test-key' }),
      refiner: { refinerLm: appendingReflection() },
      images: true,
      maxMetricCalls: 4,
    });
    await expect(run).rejects.toThrow('refiner.refinerLm: cannot take images');
  });

  it('undeclared, an image sent to a model that cannot take it is a failed reflection, not a crash; a model marked acceptsImages reads ctx.content', async () => {
    const seen: unknown[] = [];
    // Its one reflection failed: a run whose every reflection failed is a failed run, its partial result kept.
    const blind = await optimizeAnything({ seedCandidate: 'c', evaluator: () => ({ score: 0, sideInfo: { Render: image(PNG_URL) } }), reflectionLm: appendingReflection(), maxMetricCalls: 3 }).catch((error: unknown) => error);
    expect(blind).toBeInstanceOf(RunFailedError);
    expect((blind as RunFailedError).result.proposals[0]?.reason).toContain('the prompt holds images and this model cannot take them');
    const seeing: LanguageModel = Object.assign(
      async (prompt: string, ctx: { content?: readonly unknown[] }) => {
        seen.push(...(ctx.content ?? []));
        return '```\n' + currentArtifact(prompt) + ' seen\n```';
      },
      { acceptsImages: true },
    );
    const result = await optimizeAnything({ seedCandidate: 'c', evaluator: (c) => ({ score: c.length, sideInfo: { Render: image(PNG_URL) } }), reflectionLm: seeing, images: true, maxMetricCalls: 3 });
    expect(result.bestCandidate).toBe('c seen');
    expect(seen.filter((p) => (p as { type: string }).type === 'image')).toEqual([{ type: 'image', mediaType: 'image/png', data: Buffer.from(PNG).toString('base64') }]);
  });
});
