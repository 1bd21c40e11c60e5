// `gepa-actors run` with optimizeAnything's evaluator module (`"evaluator": "./evaluate.mjs#evaluate"`,
// loaded as an adapter module is): a single-task run from a string seed (or a seed file) with no
// dataset calls the evaluator without an example and reaches the target on a simulated
// reflection model served on loopback; a dataset and valset make it a generalization run;
// --resume --budget continues it, and its report.html shows the artifact's diff from the seed; every bad config exits 2 naming the field, before any call.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/program.js';
import type { OptimizeResult } from '../src/gepa/core/optimizeResult.js';
import { startFakeOpenAIServer, type ChatMessage, type FakeOpenAIServer } from './support/fakeOpenAIServer.js';
import { memoryIo } from './support/memoryIo.js';

// The artifact must name four words; the evaluator reports the ones it misses. Each call appends
// what it was given (an example or none) to calls.log beside the module.
const EVALUATOR_MODULE = `
import { appendFileSync } from 'node:fs';
const log = new URL('./calls.log', import.meta.url);
const NEEDED = ['alpha', 'bravo', 'charlie', 'delta'];
export async function evaluate(candidate, example, ctx) {
  appendFileSync(log, JSON.stringify({ type: typeof candidate, example: example === undefined ? 'none' : example, signal: ctx.signal instanceof AbortSignal }) + '\\n');
  const needed = example === undefined ? NEEDED : [example.word];
  const missing = needed.filter((w) => !candidate.includes(w));
  return { score: (needed.length - missing.length) / needed.length, sideInfo: { missing: missing.length === 0 ? 'nothing' : missing.join(', ') } };
}
export const notAFunction = 42;
`;

/** The simulated reflection model: adds the first word the side information says is missing. */
function reflectionResponder(messages: ChatMessage[]): string {
  const prompt = messages.at(-1)?.content ?? '';
  const current = /```\n([\s\S]*?)\n```/.exec(prompt)?.[1] ?? '';
  const missing = [...prompt.matchAll(/## missing\n([a-z]+)/g)].map((m) => m[1]).find((w) => w !== 'nothing');
  return `\`\`\`\n${missing ? `${current} ${missing}` : `${current}.`}\n\`\`\``;
}

const OBJECTIVE = 'Name every word the checker needs.';
const BASE = { seedCandidate: 'alpha', evaluator: './evaluate.mjs#evaluate', objective: OBJECTIVE, reflectionModel: 'gpt-5-mini', maxMetricCalls: 12 };

let dir: string;
let server: FakeOpenAIServer;

async function writeRun(name: string, config: Record<string, unknown>) {
  const runDir = join(dir, name);
  await rm(runDir, { recursive: true, force: true });
  await mkdir(runDir, { recursive: true });
  await writeFile(join(runDir, 'evaluate.mjs'), EVALUATOR_MODULE);
  await writeFile(join(runDir, 'seed.txt'), 'bravo');
  await writeFile(join(runDir, 'train.jsonl'), ['alpha', 'bravo', 'charlie'].map((word) => JSON.stringify({ word })).join('\n'));
  await writeFile(join(runDir, 'val.jsonl'), ['bravo', 'delta'].map((word) => JSON.stringify({ word })).join('\n'));
  await writeFile(join(runDir, 'empty.jsonl'), '');
  const configPath = join(runDir, 'config.json');
  await writeFile(configPath, JSON.stringify(config, null, 2));
  const calls = async () => {
    const file = join(runDir, 'calls.log');
    return existsSync(file) ? (await readFile(file, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { type: string; example: unknown; signal: boolean }) : [];
  };
  return { runDir, configPath, calls };
}

async function runJson(configPath: string, flags: string[] = []): Promise<{ code: number; result: OptimizeResult; err: string }> {
  const io = memoryIo({ env: { OPENAI_BASE_URL: server.baseURL } });
  const code = await runCli(['run', configPath, '--json', ...flags], io);
  const last = io.out().trimEnd().split('\n').at(-1) ?? '';
  return { code, result: (code === 0 ? JSON.parse(last) : undefined) as OptimizeResult, err: io.err() };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gepa-run-evaluator-'));
  server = await startFakeOpenAIServer({ models: ['gpt-5-mini'], responder: reflectionResponder });
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('run with "evaluator": optimizeAnything from a config', () => {
  it('single-task search from a string seed: the evaluator gets the text and no example, the objective reaches the prompt, the run reaches 1', async () => {
    const { configPath, calls } = await writeRun('single', BASE);
    const before = server.requests.length;
    const { code, result, err } = await runJson(configPath);
    expect(code, err).toBe(0);
    expect(err).toContain('evaluator ./evaluate.mjs#evaluate (task)');
    expect(result.valScores[0]).toBe(0.25);
    expect(result.bestScore).toBe(1);
    // In the seed's form, as optimizeAnything() returns it: a string seed gives strings.
    expect(result.bestCandidate).toBe('alpha bravo charlie delta');
    const made = await calls();
    expect(made).toHaveLength(result.metricCalls);
    expect(made.every((c) => c.type === 'string' && c.example === 'none' && c.signal)).toBe(true);
    // The reflection prompts (the endpoint check's ping aside).
    const prompts = server.requests.slice(before).map((r) => r.body?.messages?.at(-1)?.content ?? '').filter((p) => p.includes('```'));
    expect(prompts.length).toBeGreaterThan(0);
    expect(prompts.every((p) => p.includes(OBJECTIVE))).toBe(true);
  });

  it('"seedFile" gives the seed as a file\'s text', async () => {
    const { seedCandidate: _seed, ...rest } = BASE;
    const { configPath } = await writeRun('seed-file', { ...rest, seedFile: 'seed.txt' });
    const { code, result, err } = await runJson(configPath);
    expect(code, err).toBe(0);
    expect(result.candidates[0]).toBe('bravo');
    expect(result.valScores[0]).toBe(0.25);
  });

  it('"dataset" and "valset": generalization, the evaluator called with each example, valset scores per valset example', async () => {
    const { configPath, calls } = await writeRun('generalization', { ...BASE, dataset: 'train.jsonl', valset: 'val.jsonl', maxMetricCalls: 30 });
    const { code, result, err } = await runJson(configPath);
    expect(code, err).toBe(0);
    expect(result.valSubscores[0]).toEqual([0, 0]); // 'alpha' names neither 'bravo' nor 'delta'
    expect((await calls()).every((c) => typeof c.example === 'object')).toBe(true);
    expect(result.bestScore).toBeGreaterThan(0);
  });

  it('--resume --budget continues a single-task run in its run directory to the same result as one uninterrupted run', async () => {
    const whole = await writeRun('whole', { ...BASE, runDir: 'run' });
    const uninterrupted = await runJson(whole.configPath);
    const split = await writeRun('split', { ...BASE, maxMetricCalls: 5, runDir: 'run' });
    const first = await runJson(split.configPath);
    expect(first.code, first.err).toBe(0);
    expect(first.result.metricCalls).toBeLessThanOrEqual(5);
    const resumed = await runJson(split.configPath, ['--resume', '--budget', '12']);
    expect(resumed.code, resumed.err).toBe(0);
    expect(resumed.result.candidates).toEqual(uninterrupted.result.candidates);
    expect(resumed.result.metricCalls).toBe(uninterrupted.result.metricCalls);
    // report.html shows the artifact's word diff from the seed.
    const report = await readFile(join(split.runDir, 'run', 'report.html'), 'utf8');
    expect(report).toContain('the best artifact, candidate #');
    expect(report).toContain('<pre class="diff">alpha<ins> bravo charlie delta</ins></pre>');
  });

  it("log() in the evaluator module reaches the reflection prompt as that call's side information", async () => {
    const module = join(import.meta.dirname, 'support', 'loggingEvaluator.ts');
    const { configPath } = await writeRun('logging', { ...BASE, evaluator: `${module}#evaluate`, maxMetricCalls: 3 });
    const before = server.requests.length;
    const { code, err } = await runJson(configPath);
    expect(code, err).toBe(0);
    const prompts = server.requests.slice(before).map((r) => r.body?.messages?.at(-1)?.content ?? '').filter((p) => p.includes('```'));
    expect(prompts[0]).toContain('logged: still missing bravo');
  });

  it.each([
    ['trainset beside an evaluator', { trainset: 'train.jsonl' }, 'trainset: with "evaluator" the examples are "dataset"'],
    ['an adapter beside it', { adapter: './evaluate.mjs#evaluate' }, 'adapter: not used with "evaluator"'],
    ['the chat task beside it', { taskModel: 'gpt-4.1-mini', metric: 'exact-match' }, 'taskModel: not used with "evaluator"'],
    ['no seed and no objective', { seedCandidate: undefined, objective: undefined }, 'objective: required without a seed'],
    ['a seed twice', { seedFile: 'seed.txt' }, 'seedFile: give the seed once'],
    ['a valset without a dataset', { valset: 'val.jsonl' }, 'valset: needs "dataset"'],
    ['a missing seed file', { seedCandidate: undefined, seedFile: 'nope.txt' }, 'seedFile: ENOENT'],
    ['an empty dataset', { dataset: 'empty.jsonl' }, 'dataset'],
    ['a missing module', { evaluator: './nope.mjs' }, 'evaluator: evaluator module not found'],
    ['a missing export', { evaluator: './evaluate.mjs#other' }, 'has no export "other"; its exports: evaluate, notAFunction'],
    ['an export that is no function', { evaluator: './evaluate.mjs#notAFunction' }, 'is not an evaluator'],
    ['a seed that is neither text nor named texts', { seedCandidate: 42 }, 'seedCandidate'],
    ['a string seed without an evaluator', { evaluator: undefined, trainset: 'train.jsonl', adapter: './evaluate.mjs', objective: undefined }, 'a string seed needs an "evaluator"'],
    ['objective without an evaluator', { evaluator: undefined, seedCandidate: { p: 'x' }, trainset: 'train.jsonl', adapter: './evaluate.mjs' }, 'objective: only with "evaluator"'],
  ])('exits 2 naming the field, nothing written: %s', async (_name, change, message) => {
    const { configPath, runDir, calls } = await writeRun('refused', { ...BASE, runDir: 'run', ...change });
    const io = memoryIo({ env: { OPENAI_BASE_URL: server.baseURL } });
    expect(await runCli(['run', configPath], io)).toBe(2);
    expect(io.err()).toContain(message);
    expect(await calls()).toEqual([]);
    expect(existsSync(join(runDir, 'run'))).toBe(false);
  });
});
