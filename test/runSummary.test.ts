// What the CLI prints at the end of a run: tokens per model, as the report lists them; "unpriced",
// never "$0", when no call had a price (a run whose adapter throws made no priced call); and each
// progress line once, the last included.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { SimulatedClock } from 'xstate';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/program.js';
import { createProgressDisplay } from '../src/cli/progressDisplay.js';
import { steppingClock } from '../src/clock.js';
import type { OptimizeResult } from '../src/gepa/core/optimizeResult.js';
import { ARITHMETIC_RUN_CONFIG, writeArithmeticDataset } from './support/arithmeticRun.js';
import { startFakeOpenAIServer, type FakeOpenAIServer } from './support/fakeOpenAIServer.js';
import { memoryIo } from './support/memoryIo.js';

let server: FakeOpenAIServer | undefined;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gepa-summary-'));
  await writeArithmeticDataset(dir);
  await writeFile(join(dir, 'throws.mjs'), "export const adapter = { async evaluate() { throw new Error('the adapter broke'); } };\n");
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(config: Record<string, unknown>): Promise<{ summary: string; result: OptimizeResult }> {
  server ??= await startFakeOpenAIServer({ models: ['gpt-4.1-mini', 'gpt-5-mini'] });
  const path = join(dir, `run-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(path, JSON.stringify(config));
  const io = memoryIo({ env: { OPENAI_BASE_URL: server.baseURL }, cwd: dir });
  await runCli(['run', path, '--json'], io);
  const summary = io.err().slice(io.err().lastIndexOf('GEPA run '));
  return { summary, result: JSON.parse(io.out().trim().split('\n').at(-1)!) as OptimizeResult };
}

describe('the summary', () => {
  it('lists tokens per model: calls and the tokens the server reported for each model, and the dollars they cost', async () => {
    const { summary, result } = await run({ ...ARITHMETIC_RUN_CONFIG, prices: { 'gpt-4.1-mini': { inputPerMTok: 1000, outputPerMTok: 2000 } } });
    const chats = server!.requests.filter((r) => r.path.endsWith('/chat/completions'));
    expect(server!.usageReported).toHaveLength(chats.length);
    const perModel = new Map<string, { calls: number; input: number; output: number }>();
    chats.forEach((request, i) => {
      const row = perModel.get(request.body!.model!) ?? { calls: 0, input: 0, output: 0 };
      row.calls++;
      row.input += server!.usageReported[i]!.prompt_tokens;
      row.output += server!.usageReported[i]!.completion_tokens;
      perModel.set(request.body!.model!, row);
    });
    const task = perModel.get('gpt-4.1-mini')!;
    const reflection = perModel.get('gpt-5-mini')!;
    expect(task.calls).toBe(result.metricCalls);
    expect(reflection.calls).toBe(result.reflectionCalls);
    const n = (x: number) => x.toLocaleString('en-US');
    const taskDollars = (task.input * 1000 + task.output * 2000) / 1e6;
    expect(taskDollars).toBeGreaterThan(0.01);
    expect(summary).toContain(`tokens, task gpt-4.1-mini: ${task.calls} calls, ${n(task.input)} input + ${n(task.output)} output, $${taskDollars.toFixed(2)}\n`);
    expect(summary).toContain(`tokens, reflection gpt-5-mini: ${reflection.calls} calls, ${n(reflection.input)} input + ${n(reflection.output)} output, `);
  });

  it('a run whose adapter throws made no priced call: cost "unpriced", never "$0" (with a run directory or without)', async () => {
    const adapterRun = { seedCandidate: { p: 'x' }, trainset: 'train.jsonl', valset: 'val.jsonl', adapter: './throws.mjs', reflectionModel: 'gpt-5-mini', maxMetricCalls: 20 };
    for (const config of [adapterRun, { ...adapterRun, runDir: 'runs/throws' }]) {
      const { summary, result } = await run(config);
      expect(result.stopReason).toBe('error');
      expect(result.failures).toEqual({ total: 4, byKind: { adapter: 4 } });
      expect(summary).toContain(', cost unpriced, stopped by an error');
      expect(summary).not.toContain('$0');
    }
  });
});

describe('plain progress lines', () => {
  function lines(events: (display: ReturnType<typeof createProgressDisplay>) => void): string[] {
    let text = '';
    const stream = new Writable({
      write(chunk: Buffer | string, _encoding, callback) {
        text += chunk.toString();
        callback();
      },
    });
    const display = createProgressDisplay({ mode: 'lines', stream, workers: 2, budget: { maxMetricCalls: 600 }, clock: steppingClock(new SimulatedClock()) });
    events(display);
    return text.trimEnd().split('\n');
  }

  it('a run that stops where its last status line stood prints that line once', () => {
    const printed = lines((display) => {
      display.onEvent({ type: 'front.updated', bestIndex: 0, bestScore: 0.4, frontSize: 1 });
      display.onEvent({ type: 'budget.updated', metricCalls: 567, reserved: 567, costUsd: 0 });
      display.stop(567);
    });
    expect(printed).toEqual(['seed candidate: valset 0.400', '[ 95%] 567/600 calls | best 0.400 (seed 0.400) | 1 candidate | 0 in flight | 0% busy | 0 ms']);
  });

  it('the final line is printed when it says something new (more calls, a better best)', () => {
    const printed = lines((display) => {
      display.onEvent({ type: 'front.updated', bestIndex: 0, bestScore: 0.4, frontSize: 1 });
      display.onEvent({ type: 'budget.updated', metricCalls: 567, reserved: 567, costUsd: 0 });
      display.onEvent({ type: 'front.updated', bestIndex: 1, bestScore: 0.5, frontSize: 1 });
      display.stop(590);
    });
    expect(printed.slice(1)).toEqual([
      '[ 95%] 567/600 calls | best 0.400 (seed 0.400) | 1 candidate | 0 in flight | 0% busy | 0 ms',
      '[ 98%] 590/600 calls | best 0.500 (seed 0.400) | 1 candidate | 0 in flight | 0% busy | 0 ms',
    ]);
  });
});
