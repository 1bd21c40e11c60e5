// Every example in examples/ runs, offline, with a small budget: each as its own process, the
// way a user runs it (tsx). math-openai: its config and datasets load and validate, and the CLI
// runs it end to end against the loopback OpenAI-compatible server.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRunConfig } from '../src/cli/runConfig.js';
import { runCli } from '../src/cli/program.js';
import { parseInspectionLog } from '../src/report/inspectionLog.js';
import type { OptimizeResult } from '../src/gepa/core/optimizeResult.js';
import { addToolStep, arithmeticResponder, startFakeOpenAIServer, type Responder } from './support/fakeOpenAIServer.js';
import { memoryIo } from './support/memoryIo.js';

const ROOT = join(import.meta.dirname, '..');
const MATH = join(ROOT, 'examples/math-openai');
const exec = promisify(execFile);

const runExample = (file: string, args: string[]) =>
  exec(process.execPath, ['--import', 'tsx', join('examples', file), ...args], { cwd: ROOT, env: { ...process.env, CI: 'true' }, timeout: 30_000 });

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gepa-examples-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.concurrent('examples', () => {
  it('quickstart.ts optimizes the demo task', async () => {
    const { stdout } = await runExample('quickstart.ts', ['--budget', '150']);
    expect(stdout).toMatch(/candidate #1 from #0: valset \d\.\d{3}/);
    expect(stdout).toMatch(/best valset score \d\.\d{3} \(seed 0\.400\) after \d+ metric calls/);
  });

  it('embed-machine.ts follows the run through actor.on and stops it with the signal', async () => {
    const { stdout } = await runExample('embed-machine.ts', ['--budget', '600', '--stop-after', '2']);
    expect(stdout).toContain('optimizer state: "seeding"');
    expect(stdout).toContain('candidate #2: valset');
    expect(stdout).toMatch(/stopped \(aborted\) with \d+ candidates/);
  });

  it('custom-actor.ts runs on a batching evaluator of its own', async () => {
    const { stdout } = await runExample('custom-actor.ts', ['--budget', '200']);
    const match = /(\d+) metric calls in (\d+) round trips/.exec(stdout);
    expect(match).not.toBeNull();
    const [calls, trips] = [Number(match?.[1]), Number(match?.[2])];
    expect(calls).toBeGreaterThan(30);
    expect(calls).toBeLessThanOrEqual(200);
    // Batching: far fewer round trips than calls.
    expect(trips).toBeLessThan(calls / 3);
    expect(stdout).toContain('stopped: maxMetricCalls');
  });

  it('anything-config-search.ts: single-task search improves a service config scored by running it', async () => {
    const { stdout } = await runExample('anything-config-search.ts', ['--budget', '40', '--seed', '3']);
    const match = /best score (\d\.\d{3}) \(seed (\d\.\d{3})\) after (\d+) load tests/.exec(stdout);
    expect(match).not.toBeNull();
    expect(Number(match?.[1])).toBeGreaterThan(Number(match?.[2]));
    expect(Number(match?.[3])).toBeLessThanOrEqual(40);
    expect(stdout).toMatch(/best config:\nworkers = \d+\n/);
  });

  it('anything-seedless.ts: the reflection model writes the seed, then the run improves it', async () => {
    const { stdout } = await runExample('anything-seedless.ts', ['--budget', '30']);
    expect(stdout).toMatch(/the reflection model wrote the seed:\nworkers = \d+/);
    const match = /best score (\d\.\d{3}) \(seed (\d\.\d{3})\) after (\d+) metric calls/.exec(stdout);
    expect(Number(match?.[1])).toBeGreaterThan(Number(match?.[2]));
    expect(Number(match?.[3])).toBeLessThanOrEqual(30);
  });

  it('anything-multi-task.ts: a record-normalization prompt improves over its dataset', async () => {
    const { stdout } = await runExample('anything-multi-task.ts', ['--budget', '200']);
    const match = /best mean over the 24 records (\d\.\d{3}) \(seed (\d\.\d{3})\) after (\d+) metric calls/.exec(stdout);
    expect(match).not.toBeNull();
    expect(Number(match?.[1])).toBeGreaterThan(Number(match?.[2]));
    expect(Number(match?.[3])).toBeLessThanOrEqual(200);
  });

  it('inspector.ts --offline writes the inspection events to inspect.jsonl', async () => {
    const out = join(dir, 'inspector');
    const { stdout } = await runExample('inspector.ts', ['--offline', '--out', out, '--budget', '100']);
    expect(stdout).toContain(`written to ${join(out, 'inspect.jsonl')}`);
    const records = parseInspectionLog(await readFile(join(out, 'inspect.jsonl'), 'utf8'));
    const logics = new Set(records.flatMap((r) => (r.kind === 'actor' && r.logic ? [r.logic] : [])));
    expect([...logics]).toEqual(expect.arrayContaining(['optimizer', 'evaluator', 'proposer']));
  });
});

describe('examples/math-openai', () => {
  it('has a valid config and 20 + 20 word problems with numeric answers', async () => {
    const loaded = await loadRunConfig(join(MATH, 'config.json'));
    expect(loaded.trainset).toHaveLength(20);
    expect(loaded.valset).toHaveLength(20);
    for (const row of [...(loaded.trainset ?? []), ...(loaded.valset ?? [])]) expect((row as { answer: string }).answer).toMatch(/^-?\d+$/);
    expect(loaded.runDir).toBe(join(MATH, 'runs/math-openai'));
    expect(loaded.file.metric).toBe('exact-match');
  });

  it('runs through the CLI against an OpenAI-compatible server (loopback, tiny budget)', async () => {
    const rows = [...(await readFile(join(MATH, 'train.jsonl'), 'utf8')).split('\n'), ...(await readFile(join(MATH, 'val.jsonl'), 'utf8')).split('\n')]
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { input: string; answer: string });
    const answers = new Map(rows.map((r) => [r.input, r.answer]));
    // A task model that knows the answers but explains itself unless told to give only the number.
    const responder: Responder = (messages) => {
      const user = messages.at(-1)?.content ?? '';
      const answer = answers.get(user);
      if (answer === undefined) return arithmeticResponder(messages);
      const system = messages.find((m) => m.role === 'system')?.content ?? '';
      return /only the (final )?(number|answer)/i.test(system) ? answer : `Let me work it out step by step. The answer is ${answer}.`;
    };
    const server = await startFakeOpenAIServer({ responder, models: ['gpt-4.1-mini', 'gpt-5-mini'] });
    try {
      const config = JSON.parse(await readFile(join(MATH, 'config.json'), 'utf8')) as Record<string, unknown>;
      const path = join(dir, 'math.json');
      await writeFile(
        path,
        JSON.stringify({ ...config, trainset: join(MATH, 'train.jsonl'), valset: join(MATH, 'val.jsonl'), runDir: join(dir, 'math-run'), maxMetricCalls: 50 }),
      );
      const io = memoryIo({ env: { OPENAI_BASE_URL: server.baseURL } });
      expect(await runCli(['run', path, '--json'], io)).toBe(0);
      const result = JSON.parse(io.out().trimEnd().split('\n').at(-1) ?? '') as OptimizeResult;
      expect(result.valScores[0]).toBe(0);
      expect(result.bestScore).toBe(1);
      expect(result.metricCalls).toBeLessThanOrEqual(50);
      expect(result.costUsd).toBeGreaterThan(0);
      expect(existsSync(join(dir, 'math-run/report.html'))).toBe(true);
    } finally {
      await server.close();
    }
  });
});

describe('examples/ai-sdk-app.ts', () => {
  it("optimizes the app's own generateText call with a tool, against an OpenAI-compatible server (loopback)", async () => {
    const server = await startFakeOpenAIServer({ stepFor: (messages) => addToolStep(messages) });
    try {
      const { stdout } = await exec(process.execPath, ['--import', 'tsx', join('examples', 'ai-sdk-app.ts'), '--budget', '40'], {
        cwd: ROOT,
        env: { ...process.env, OPENAI_BASE_URL: server.baseURL },
        timeout: 30_000,
      });
      expect(stdout).toMatch(/^best valset score 1\.000 \(seed 0\.000\) after \d+ metric calls, [1-9]\d* reflections/);
      expect(stdout).toContain('Reply with only the final number.');
      // The app's tool ran: every question's first turn called it.
      expect(server.requests.some((r) => r.step === 'tool-calls')).toBe(true);
      expect(server.requests.some((r) => r.body?.messages?.some((m) => m.role === 'tool'))).toBe(true);
    } finally {
      await server.close();
    }
  });
});
