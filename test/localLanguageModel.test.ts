// The local model backend as a library user meets it: a missing file or one that is not a GGUF
// fails loudly when the model is built; `local:<path>` is accepted wherever `openai:<model>` is;
// and, on the real Gemma 3 270M file, a call returns real text with counted tokens, a prompt
// longer than the context is a classified failure, an abort stops a long generation, and
// concurrent calls share the one loaded model.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { optimize } from '../src/index.js';
import { createLocalChatModel, createLocalLanguageModel, disposeLocalModels, LocalModelError } from '../src/entries/models.js';
import { failureOf } from '../src/evaluation/failureTally.js';
import { modelStringName, resolveLanguageModel } from '../src/lm/resolveLanguageModel.js';
import { GGUF_PATH, skipRealModel } from './support/localGguf.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gepa-local-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await disposeLocalModels();
});

describe('building a local model', () => {
  it('a missing file is a LocalModelError of kind missing-file, before any call', () => {
    const build = () => createLocalChatModel({ modelPath: join(dir, 'nope.gguf') });
    expect(build).toThrow(LocalModelError);
    expect(build).toThrow(/nope\.gguf: no such file/);
    try {
      build();
    } catch (error) {
      expect((error as LocalModelError).kind).toBe('missing-file');
    }
  });

  it('a file that is not a GGUF is a LocalModelError of kind not-gguf', async () => {
    const path = join(dir, 'weights.gguf');
    await writeFile(path, '{"not": "a model"}');
    let caught: unknown;
    try {
      createLocalLanguageModel({ modelPath: path });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(LocalModelError);
    expect((caught as LocalModelError).kind).toBe('not-gguf');
    expect((caught as Error).message).toContain('not a GGUF file (it starts with "{\\"no", expected "GGUF")');
  });

  it('rejects options that cannot work', async () => {
    const path = join(dir, 'magic.gguf');
    await writeFile(path, 'GGUF\u0003\u0000\u0000\u0000');
    expect(() => createLocalChatModel({ modelPath: path, sequences: 0 })).toThrow('sequences must be a positive integer, got 0');
    expect(() => createLocalChatModel({ modelPath: path, template: 'raw' as never })).toThrow(`template must be 'chat' or 'none'`);
    // A file that only starts like a GGUF is accepted when built, and fails to load on first use.
    await expect(createLocalChatModel({ modelPath: path }).load()).rejects.toMatchObject({ kind: 'load' });
  });

  it('"local:<path>" resolves like "openai:<model>", and names the model by its file', async () => {
    expect(() => resolveLanguageModel('local:')).toThrow('names no file: use "local:<path to a .gguf>"');
    expect(() => resolveLanguageModel(`local:${join(dir, 'absent.gguf')}`)).toThrow(/absent\.gguf: no such file/);
    expect(() => resolveLanguageModel('gemma')).toThrow('"local:<path to a .gguf>"');
    expect(modelStringName('local:models/gemma-3-270m-q4_k_m.gguf')).toBe('gemma-3-270m-q4_k_m');
    expect(modelStringName('openai:gpt-4.1-mini')).toBe('gpt-4.1-mini');
    // optimize() takes the string: a bad file is a configuration error before any work.
    await expect(
      optimize({
        seedCandidate: { p: 'x' },
        trainset: [1],
        adapter: { evaluate: async () => ({ score: 1 }) },
        reflectionLm: `local:${join(dir, 'absent.gguf')}`,
        maxMetricCalls: 5,
      }),
    ).rejects.toThrow(/reflectionLm: local model .*absent\.gguf: no such file/);
  });
});

describe.skipIf(skipRealModel)('Gemma 3 270M in this process', () => {
  it('returns real text with the tokens it counted; the same prompt gives the same reply (greedy)', async () => {
    const lm = createLocalLanguageModel({ modelPath: GGUF_PATH, maxTokens: 12, template: 'none' });
    expect(lm.model).toBe('gemma-3-270m-q4_k_m');
    const a = await lm('The capital of France is');
    const b = await lm('The capital of France is');
    expect(a.text.trim().length).toBeGreaterThan(0);
    expect(a.usage?.completionTokens).toBeGreaterThan(0);
    expect(a.usage?.completionTokens).toBeLessThanOrEqual(12);
    // "The capital of France is": a handful of tokens plus the BOS token.
    expect(a.usage?.promptTokens).toBeGreaterThanOrEqual(5);
    expect(a.usage?.promptTokens).toBeLessThan(12);
    expect(a.costUsd).toBeUndefined(); // unpriced
    expect(b.text).toBe(a.text);
    // The chat template (the file has none: node-llama-cpp's Gemma turns) adds its turn markers.
    const chat = createLocalChatModel({ modelPath: GGUF_PATH, maxTokens: 4 });
    const c = await chat({ system: 'Be brief.', user: 'The capital of France is' });
    expect(c.usage?.promptTokens).toBeGreaterThan(a.usage?.promptTokens as number);
  });

  it('prices a call only when a price is given', async () => {
    const lm = createLocalLanguageModel({ modelPath: GGUF_PATH, maxTokens: 3, template: 'none', prices: { 'gemma-3-270m-q4_k_m': { inputPerMTok: 1_000_000, outputPerMTok: 2_000_000 } } });
    const reply = await lm('Hello');
    const { promptTokens, completionTokens } = reply.usage as { promptTokens: number; completionTokens: number };
    expect(reply.costUsd).toBe(promptTokens + 2 * completionTokens);
    expect(lm.estimateMaxCostUsd?.('Hello')).toBeGreaterThanOrEqual(reply.costUsd as number);
  });

  it('a prompt longer than the context is a recorded context-length failure, not a crash', async () => {
    const lm = createLocalLanguageModel({ modelPath: GGUF_PATH, template: 'none' });
    const error = await lm('word '.repeat(5000)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LocalModelError);
    expect((error as LocalModelError).kind).toBe('context-length');
    expect((error as Error).message).toMatch(/the prompt is \d+ tokens, the context holds 4096/);
    expect(failureOf(error, 'other').kind).toBe('context-length');
  });

  it('an abort stops a generation in progress, or takes a waiting call out of the queue; the model serves the next call', async () => {
    const lm = createLocalLanguageModel({ modelPath: GGUF_PATH, maxTokens: 2000, contextSize: 4096, template: 'none', temperature: 1, seed: 1 });
    await lm.load();
    const controller = new AbortController();
    const queued = new AbortController();
    const started = performance.now();
    const call = lm('Once upon a time', { signal: controller.signal });
    // A call waiting for the model's one sequence leaves the queue on its own abort.
    const waiting = lm('Once upon a time', { signal: queued.signal });
    setTimeout(() => queued.abort(new Error('not needed')), 100);
    await expect(waiting).rejects.toThrow('not needed');
    setTimeout(() => controller.abort(new Error('stop now')), 200);
    await expect(call).rejects.toThrow('stop now');
    // 2000 tokens take minutes here; the abort ends it within seconds.
    expect(performance.now() - started).toBeLessThan(20_000);
    const after = await createLocalLanguageModel({ modelPath: GGUF_PATH, maxTokens: 2, contextSize: 4096, template: 'none', temperature: 1, seed: 1 })('Hi');
    expect(after.usage?.completionTokens).toBeGreaterThan(0);
  });

  it('concurrent calls share one loaded model (they queue for its sequence) and each gets its own reply', async () => {
    const lm = createLocalLanguageModel({ modelPath: GGUF_PATH, maxTokens: 3, template: 'none' });
    const prompts = ['One, two,', 'Red, green,', 'Monday, Tuesday,'];
    const together = await Promise.all(prompts.map((p) => lm(p)));
    const alone: string[] = [];
    for (const p of prompts) alone.push((await lm(p)).text);
    expect(together.map((r) => r.text)).toEqual(alone);
  });
});
