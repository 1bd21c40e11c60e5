// `gepa-actors run` with the user's own adapter module (`"adapter": "./adapter.mjs#adapter"`,
// loaded as `gepa-actors worker` loads it) and raw JSONL rows: a run on the loopback reflection
// server improves on its seed; with an `executor` block its metric calls run on worker
// processes; the config takes every optimize() option from the library's own schema and
// forwards each one; the chat task's fields are refused beside an adapter.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/program.js';
import { loadRunConfig, OPTIMIZER_FIELDS } from '../src/cli/runConfig.js';
import { buildRunConfig } from '../src/cli/runCommand.js';
import { resolveSettings, settingsFields } from '../src/config/runSettings.js';
import type { OptimizeResult } from '../src/gepa/core/optimizeResult.js';
import { startFakeOpenAIServer, type FakeOpenAIServer } from './support/fakeOpenAIServer.js';
import { memoryIo } from './support/memoryIo.js';
import { startWorkerProcess, testRedis, type TestRedis, type WorkerProcess } from './support/testRedis.js';

// A plain JavaScript adapter: it sums `terms` itself, tersely only when the instruction asks for
// the final number alone, and scores exact equality with `expected`. Every call appends the pid
// of the process that ran it to calls.log beside the module.
const ADAPTER_MODULE = `
import { appendFileSync } from 'node:fs';
const log = new URL('./calls.log', import.meta.url);
export const adapter = {
  async evaluate(candidate, example) {
    appendFileSync(log, process.pid + '\\n');
    const sum = example.terms.reduce((a, b) => a + b, 0);
    const output = /only the final number/i.test(candidate.instruction) ? String(sum) : 'The terms add up to ' + sum + '.';
    const score = output === String(example.expected) ? 1 : 0;
    return { score, output, feedback: score === 1 ? 'Correct.' : 'Expected exactly "' + example.expected + '", nothing else; got "' + output + '".' };
  },
};
export const notAnAdapter = 42;
`;

const rows = (sums: number[][]) => sums.map((terms) => JSON.stringify({ terms, expected: terms.reduce((a, b) => a + b, 0) })).join('\n');

const ADAPTER_CONFIG = {
  seedCandidate: { instruction: 'Add the numbers.' },
  trainset: 'train.jsonl',
  valset: 'val.jsonl',
  adapter: './adapter.mjs#adapter',
  reflectionModel: 'gpt-5-mini',
  maxMetricCalls: 30,
  workers: 4,
};

let dir: string;
let server: FakeOpenAIServer;
const env = () => ({ OPENAI_BASE_URL: server.baseURL });

/** A fresh directory holding the adapter module, its datasets and `config` as config.json. */
async function writeRun(name: string, config: Record<string, unknown>): Promise<{ runDir: string; configPath: string; calls: () => Promise<number[]> }> {
  const runDir = join(dir, name);
  await rm(runDir, { recursive: true, force: true });
  await mkdir(runDir, { recursive: true });
  await writeFile(join(runDir, 'adapter.mjs'), ADAPTER_MODULE);
  await writeFile(join(runDir, 'train.jsonl'), rows([[1, 2], [3, 4, 5], [6, 7], [8, 9]]));
  await writeFile(join(runDir, 'val.jsonl'), rows([[2, 2], [10, 5, 1], [6, 6], [9, 9]]));
  const configPath = join(runDir, 'config.json');
  await writeFile(configPath, JSON.stringify(config, null, 2));
  const calls = async () => {
    const log = join(runDir, 'calls.log');
    return existsSync(log) ? (await readFile(log, 'utf8')).trim().split('\n').map(Number) : [];
  };
  return { runDir, configPath, calls };
}

async function runJson(configPath: string): Promise<{ code: number; result: OptimizeResult; err: string }> {
  const io = memoryIo({ env: env() });
  const code = await runCli(['run', configPath, '--json'], io);
  const last = io.out().trimEnd().split('\n').at(-1) ?? '';
  return { code, result: (code === 0 ? JSON.parse(last) : undefined) as OptimizeResult, err: io.err() };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gepa-run-adapter-'));
  server = await startFakeOpenAIServer({ models: ['gpt-5-mini'] });
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('run with "adapter": the user\'s module', () => {
  it('completes with exit 0 and improves on the seed; every metric call ran in this process', async () => {
    const { configPath, calls } = await writeRun('local', ADAPTER_CONFIG);
    const { code, result, err } = await runJson(configPath);
    expect(code, err).toBe(0);
    expect(err).toContain('adapter ./adapter.mjs#adapter (task)');
    expect(result.valScores[0]).toBe(0); // "The terms add up to 4." is not "4"
    expect(result.bestScore).toBe(1); // the reflection adds "Reply with only the final number."
    expect(result.bestCandidate.instruction).toContain('only the final number');
    const pids = await calls();
    expect(pids).toHaveLength(result.metricCalls);
    expect(new Set(pids)).toEqual(new Set([process.pid]));
  });

  it.each([
    ['taskModel', { taskModel: 'gpt-4.1-mini' }, 'taskModel: not used with "adapter"'],
    ['metric', { metric: 'exact-match' }, 'metric: not used with "adapter"'],
    ['component', { component: 'instruction' }, 'component: not used with "adapter"'],
    ['a missing module', { adapter: './nope.mjs' }, 'adapter: adapter module not found'],
    ['a missing export', { adapter: './adapter.mjs#other' }, 'has no export "other"; its exports: adapter, notAnAdapter'],
    ['an export that is no adapter', { adapter: './adapter.mjs#notAnAdapter' }, 'is not an adapter'],
    ['an empty export name', { adapter: './adapter.mjs#' }, "adapter: no export name after '#'"],
  ])('exits 2 naming the field: %s', async (_name, change, message) => {
    const { configPath } = await writeRun('refused', { ...ADAPTER_CONFIG, ...change });
    const io = memoryIo({ env: env() });
    expect(await runCli(['run', configPath], io)).toBe(2);
    expect(io.err()).toContain(message);
  });

  it('without "adapter" the chat task needs taskModel and metric, and a bullmq executor needs an adapter', async () => {
    const { adapter: _adapter, ...chat } = ADAPTER_CONFIG;
    const { configPath } = await writeRun('chat-missing', { ...chat, executor: { kind: 'bullmq', connection: 'redis://127.0.0.1:1' } });
    const io = memoryIo({ env: env() });
    expect(await runCli(['run', configPath], io)).toBe(2);
    expect(io.err()).toContain('taskModel: required');
    expect(io.err()).toContain('metric: required (exact-match or contains-answer)');
    expect(io.err()).toContain('executor: the bullmq executor needs "adapter"');
  });
});

describe('run with "adapter" and an "executor" block: metric calls on `gepa-actors worker` processes', () => {
  let redis: TestRedis;
  const workers: WorkerProcess[] = [];
  beforeAll(async () => {
    redis = await testRedis();
  }, 30_000);
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    if (redis.url) await redis.stop();
  });

  it('every metric call is a job run by one of the workers, never by the run\'s process', async (ctx) => {
    if (!redis.url) return ctx.skip();
    const queue = `cli-adapter-${process.pid}`;
    const { configPath, runDir, calls } = await writeRun('remote', { ...ADAPTER_CONFIG, executor: { kind: 'bullmq', connection: redis.url, queue } });
    const adapterArg = `${join(runDir, 'adapter.mjs')}#adapter`;
    for (let i = 0; i < 2; i++) workers.push(await startWorkerProcess(['--adapter', adapterArg, '--redis', redis.url, '--queue', queue, '--concurrency', '2']));
    const { code, result, err } = await runJson(configPath);
    expect(code, err).toBe(0);
    expect(err).toContain(`metric calls on BullMQ queue "${queue}"`);
    expect(result.valScores[0]).toBe(0);
    expect(result.bestScore).toBe(1);
    const pids = await calls();
    expect(pids).toHaveLength(result.metricCalls);
    const workerPids = new Set(workers.map((w) => w.child.pid));
    expect(pids.every((pid) => workerPids.has(pid))).toBe(true);
    expect(pids).not.toContain(process.pid);
  }, 60_000);
});

describe('the config takes optimize()\'s own fields from the library\'s schema', () => {
  // One valid value per settings field the config accepts. A new optimize() option appears in the
  // config by itself (runConfigSchema spreads settingsFields); this table must then name it too.
  const SAMPLES: Record<string, unknown> = {
    seedCandidate: { instruction: 'Add the numbers.' },
    maxMetricCalls: 30,
    maxCostUsd: 2,
    timeoutMs: 60_000,
    targetScore: 0.9,
    maxStepsWithoutImprovement: 5,
    schedule: { kind: 'async', inFlight: 2 },
    workers: 3,
    reflectionMinibatchSize: 2,
    seed: 7,
    frontType: 'hybrid',
    tieOrder: 'newest-survives',
    stepMinibatches: 'sliding',
    parentSelection: 'current-best',
    componentSelection: 'all',
    acceptance: 'improvement-or-equal',
    proposalSelection: { topK: 2 },
    skipPerfectScore: false,
    perfectScore: 0.95,
    spendLastCalls: true,
    merge: { maxMerges: 2 },
    slotPolicy: 'fifo',
    valsetPolicy: { kind: 'race', chunk: 2 },
    runDir: 'runs/all-fields',
    failFast: true,
    maxConsecutiveFailures: 4,
    trackBestOutputs: true,
    telemetry: false,
    executor: { kind: 'bullmq', connection: 'redis://127.0.0.1:1', queue: 'all-fields' },
    cacheEvaluation: 'disk',
    cacheDir: 'cache/all-fields',
    reflectionStrategy: 'built-in',
    maxCandidateLength: 400,
  };
  /** The paths the loader resolves against the config's folder. */
  const RELATIVE_PATHS: Record<string, string> = { runDir: 'runs/all-fields', cacheDir: 'cache/all-fields' };
  // The settings a JSON file cannot give as they are: the datasets and the holdout set are JSONL
  // paths; the CLI pays the endpoint check itself; stopWhen names the built-ins (configStoppers.ts).
  const NOT_FROM_JSON = ['trainset', 'valset', 'holdout', 'preRunCostUsd', 'stopWhen'];

  it('every settings field is accepted (or deliberately not), and buildRunConfig forwards each one to optimize()', async () => {
    expect([...OPTIMIZER_FIELDS, ...NOT_FROM_JSON].sort()).toEqual(Object.keys(settingsFields).sort());
    expect(Object.keys(SAMPLES).sort()).toEqual([...OPTIMIZER_FIELDS].sort());
    const { configPath, runDir } = await writeRun('all-fields', { ...ADAPTER_CONFIG, ...SAMPLES });
    const loaded = await loadRunConfig(configPath);
    const built = buildRunConfig(loaded, { baseURL: server.baseURL }) as unknown as Record<string, unknown>;
    for (const field of OPTIMIZER_FIELDS) {
      const path = RELATIVE_PATHS[field];
      expect(built[field], field).toEqual(path !== undefined ? resolve(runDir, path) : SAMPLES[field]);
    }
    // And optimize()'s own validation takes the whole of it.
    const settings = resolveSettings(built as never);
    expect([settings.frontType, settings.parentSelection, settings.slotPolicy, settings.trackBestOutputs]).toEqual(['hybrid', 'current-best', 'fifo', true]);
  });

  it('refuses an unknown field with "unknown field", and preRunCostUsd, which the command sets itself', async () => {
    const { configPath } = await writeRun('unknown', { ...ADAPTER_CONFIG, frontTyp: 'hybrid', preRunCostUsd: 1 });
    const io = memoryIo({ env: env() });
    expect(await runCli(['run', configPath], io)).toBe(2);
    expect(io.err()).toContain('frontTyp: unknown field (did you mean "frontType"?)');
    expect(io.err()).toContain('preRunCostUsd: unknown field');
  });

  it('checks the executor block with the library\'s schema, naming the field', async () => {
    const { configPath } = await writeRun('bad-executor', { ...ADAPTER_CONFIG, executor: { kind: 'bullmq', connection: 'redis://127.0.0.1:1', attemps: 2 } });
    const io = memoryIo({ env: env() });
    expect(await runCli(['run', configPath], io)).toBe(2);
    expect(io.err()).toContain('executor.attemps: unknown field (did you mean "attempts"?)');
    // The same schema is optimize()'s: the library refuses the same block, naming the same field.
    const config = { seedCandidate: { a: 'x' }, trainset: [1], adapter: { evaluate: async () => ({ score: 0 }) }, reflectionLm: 'openai:gpt-5-mini', maxMetricCalls: 5 };
    expect(() => resolveSettings({ ...config, executor: { kind: 'bullmq', connection: 'redis://127.0.0.1:1', attemps: 2 } as never })).toThrow(/executor/);
    expect(() => resolveSettings({ ...config, executor: { kind: 'bullmq', connection: '' } })).toThrow(/executor\.connection/);
  });
});
