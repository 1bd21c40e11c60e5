// `gepa-actors run cfg.json --json` offline with a real model: "taskModel" and "reflectionModel"
// both "local:<gguf>" (Gemma 3 270M, installed by .ci/setup-gemma.sh), a tiny JSONL dataset, a
// handful of metric calls and one reflection. The run completes within budget with exit 0, the
// replies are real text, and log.jsonl records each call's token usage. A missing model file is
// exit 2 before anything is written.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/program.js';
import type { OptimizeResult } from '../src/gepa/core/optimizeResult.js';
import { memoryIo } from './support/memoryIo.js';
import { GGUF_PATH, skipRealModel } from './support/localGguf.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gepa-local-run-'));
  const rows = (pairs: Array<[string, string]>) => pairs.map(([input, answer]) => JSON.stringify({ input, answer })).join('\n');
  await writeFile(join(dir, 'train.jsonl'), rows([['The capital of France is', 'Paris'], ['The capital of Italy is', 'Rome'], ['The capital of Spain is', 'Madrid']]));
  await writeFile(join(dir, 'val.jsonl'), rows([['The capital of Germany is', 'Berlin'], ['The capital of Japan is', 'Tokyo'], ['The capital of Egypt is', 'Cairo']]));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const config = (model: string) => ({
  seedCandidate: { system_prompt: 'Complete the sentence with one word.' },
  trainset: 'train.jsonl',
  valset: 'val.jsonl',
  taskModel: model,
  reflectionModel: model,
  metric: 'contains-answer',
  maxTokens: 24,
  // The seed on the valset (3), one step's minibatch (3), its child (3), and the child's valset (3).
  maxMetricCalls: 12,
  workers: 2,
  runDir: 'run',
});

describe('gepa-actors run with local models', () => {
  it('a missing model file is a usage error (exit 2), named, before anything is written', async () => {
    const path = join(dir, 'missing.json');
    await writeFile(path, JSON.stringify({ ...config('local:models/absent.gguf'), runDir: 'missing-run' }));
    const io = memoryIo({ env: {} });
    expect(await runCli(['run', path], io)).toBe(2);
    expect(io.err()).toMatch(/models\/absent\.gguf: no such file/);
    expect(existsSync(join(dir, 'missing-run'))).toBe(false);
  });

  it('a dollar budget on a local model needs a price under its file name (exit 2)', async () => {
    const path = join(dir, 'priced.json');
    await writeFile(path, JSON.stringify({ ...config('local:models/tiny.gguf'), maxCostUsd: 1 }));
    const io = memoryIo({ env: {} });
    expect(await runCli(['run', path], io)).toBe(2);
    expect(io.err()).toContain('prices: taskModel "local:models/tiny.gguf" has no known price');
    expect(io.err()).toContain('"prices": { "tiny": {');
  });

  it.skipIf(skipRealModel)('completes offline with exit 0 within budget, and log.jsonl has every call\'s token usage', async () => {
    const path = join(dir, 'local.json');
    await writeFile(path, JSON.stringify(config(`local:${GGUF_PATH}`)));
    // No OPENAI_BASE_URL, no key: nothing but the file is needed.
    const io = memoryIo({ env: {} });
    expect(await runCli(['run', path, '--json'], io)).toBe(0);
    const result = JSON.parse(io.out().trimEnd().split('\n').at(-1) as string) as OptimizeResult;
    expect(result.error).toBeUndefined();
    expect(result.metricCalls).toBeGreaterThanOrEqual(9);
    expect(result.metricCalls).toBeLessThanOrEqual(12);
    expect(result.reflectionCalls).toBeGreaterThanOrEqual(1);

    const log = (await readFile(join(dir, 'run', 'log.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { t: string; evaluation?: { output?: string; usage?: { promptTokens: number; completionTokens: number } }; reply?: { text: string; usage?: { promptTokens: number; completionTokens: number } } });
    const evals = log.filter((r) => r.t === 'eval');
    const reflections = log.filter((r) => r.t === 'reflect');
    expect(evals.length).toBe(result.metricCalls);
    expect(reflections.length).toBe(result.reflectionCalls);
    for (const { evaluation } of evals) {
      expect(evaluation?.output?.trim().length).toBeGreaterThan(0);
      expect(evaluation?.usage?.promptTokens).toBeGreaterThan(5);
      expect(evaluation?.usage?.completionTokens).toBeGreaterThan(0);
      expect(evaluation?.usage?.completionTokens).toBeLessThanOrEqual(24);
    }
    for (const { reply } of reflections) {
      expect(reply?.text.trim().length).toBeGreaterThan(0);
      // The reflection prompt quotes the examples: hundreds of tokens.
      expect(reply?.usage?.promptTokens).toBeGreaterThan(100);
      expect(reply?.usage?.completionTokens).toBeGreaterThan(0);
    }
    // report.html counts tokens per model, unpriced.
    const report = await readFile(join(dir, 'run', 'report.html'), 'utf8');
    expect(report).toContain('gemma-3-270m-q4_k_m');
    expect(report).toContain('unpriced');
  });
});
