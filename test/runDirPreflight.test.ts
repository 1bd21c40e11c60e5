// What `run` checks in its run directory before the first request (exit 2, naming runDir, the
// endpoint never asked): a directory that cannot be created or written, a pseudo file system,
// `--resume` into a folder that holds no run (left exactly as it was); and what --resume may
// change: a larger --budget continues a finished run, logged so that a further resume keeps it.
// The library's runDir follows the same rule (storage/runDirAccess.ts): a folder of other files is refused.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/program.js';
import type { OptimizeResult } from '../src/gepa/core/optimizeResult.js';
import { startFakeOpenAIServer, type FakeOpenAIServer } from './support/fakeOpenAIServer.js';
import { memoryIo } from './support/memoryIo.js';
import { ARITHMETIC_RUN_CONFIG, writeArithmeticDataset } from './support/arithmeticRun.js';
import { optimize, RunDirectoryError } from '../src/index.js';
import { toyRun, toyRunConfig } from './support/toyRun.js';

let dir: string;
let server: FakeOpenAIServer;
const env = () => ({ OPENAI_BASE_URL: server.baseURL });
const lastLine = (text: string) => text.trimEnd().split('\n').at(-1) ?? '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gepa-preflight-'));
  server = await startFakeOpenAIServer({ models: ['gpt-4.1-mini', 'gpt-5-mini'] });
  await writeArithmeticDataset(dir);
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

async function writeConfig(name: string, config: Record<string, unknown>): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, JSON.stringify({ ...ARITHMETIC_RUN_CONFIG, ...config }, null, 2));
  return path;
}

/** Everything a directory holds, path -> content, to show it unchanged. */
async function snapshot(root: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(root, { recursive: true })) {
    const path = join(root, entry);
    if ((await stat(path)).isFile()) files[entry] = await readFile(path, 'utf8');
  }
  return files;
}

describe('a run directory that cannot be used: exit 2 naming runDir, no request sent', () => {
  it.each([
    ['under a regular file', () => join(dir, 'train.jsonl', 'run'), 'cannot be created'],
    ['a regular file', () => join(dir, 'train.jsonl'), 'exists and is not a directory'],
    ['under /proc (a recursive mkdir there never returns)', () => '/proc/gepa-actors-test/run', 'proc pseudo file system'],
    ['under /sys', () => '/sys/gepa-actors-test', 'sysfs pseudo file system'],
  ])('%s', async (_name, runDir, message) => {
    const config = await writeConfig('unusable.json', { runDir: runDir() });
    const io = memoryIo({ env: env() });
    const before = server.requests.length;
    expect(await runCli(['run', config], io)).toBe(2);
    expect(io.err()).toContain(`runDir: ${runDir()}`);
    expect(io.err()).toContain(message);
    expect(server.requests.length).toBe(before);
  });

  it('a directory that can be created is not left behind by the check', async () => {
    const config = await writeConfig('creatable.json', { runDir: 'deep/er/run', maxMetricCalls: 1 });
    // maxMetricCalls 1 cannot pay for the valset: refused after the directory check, before the run.
    expect(await runCli(['run', config], memoryIo({ env: env() }))).toBe(2);
    expect(existsSync(join(dir, 'deep'))).toBe(false);
  });
});

describe('--resume into a folder that holds no run: exit 2, the folder unchanged', () => {
  it.each([
    ['a folder of the user\'s files', { 'report.html': '<p>mine</p>', 'notes.txt': 'keep me' }],
    ['an empty folder', {}],
  ])('%s', async (name, files) => {
    const runDir = join(dir, `no-run-${Object.keys(files).length}`);
    await mkdir(runDir, { recursive: true });
    for (const [file, content] of Object.entries(files)) await writeFile(join(runDir, file), content);
    const before = await snapshot(runDir);
    const config = await writeConfig('no-run.json', { runDir });
    const io = memoryIo({ env: env() });
    const requests = server.requests.length;
    expect(await runCli(['run', config, '--resume'], io), name).toBe(2);
    expect(io.err()).toContain(`runDir: ${runDir} holds no run to resume`);
    expect(await snapshot(runDir)).toEqual(before);
    expect(server.requests.length).toBe(requests);
  });

  it('a folder that does not exist is not created', async () => {
    const runDir = join(dir, 'never-made');
    const config = await writeConfig('never.json', { runDir });
    expect(await runCli(['run', config, '--resume'], memoryIo({ env: env() }))).toBe(2);
    expect(existsSync(runDir)).toBe(false);
  });

  it('without --resume, a folder of other files is refused as not a run', async () => {
    const runDir = join(dir, 'users-folder');
    await mkdir(runDir, { recursive: true });
    await writeFile(join(runDir, 'report.html'), 'mine');
    const io = memoryIo({ env: env() });
    expect(await runCli(['run', await writeConfig('users.json', { runDir })], io)).toBe(2);
    expect(io.err()).toContain('files that are not a run');
    expect(await readFile(join(runDir, 'report.html'), 'utf8')).toBe('mine');
  });
});

describe("the library's runDir: the same rule, in the same place", () => {
  it('optimize() refuses a non-empty folder that holds no run before any call, and leaves it as it was', async () => {
    const folder = join(dir, 'my-notes');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'notes.txt'), 'mine');
    const before = await snapshot(folder);
    const { config, task } = toyRunConfig({ runDir: folder, runIdentity: { reflectionLm: 'toy' } });
    const refused = await optimize(config).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RunDirectoryError);
    expect((refused as Error).message).toBe(
      `runDir: ${folder} already holds files that are not a run (1 entry): nothing was written to it. Choose an empty or new directory, or the directory of a run to continue.`,
    );
    expect(task.evaluateCalls).toBe(0);
    expect(await snapshot(folder)).toEqual(before);
  });

  it('optimize() starts a run in an empty folder and continues the run a folder holds', async () => {
    const folder = join(dir, 'library-run');
    await mkdir(folder, { recursive: true });
    const first = await toyRun({ runDir: folder, runIdentity: { reflectionLm: 'toy' }, maxMetricCalls: 40 });
    expect(first.task.evaluateCalls).toBeGreaterThan(0);
    // A finished run's directory gives its result back, paying nothing.
    const again = await toyRun({ runDir: folder, runIdentity: { reflectionLm: 'toy' }, maxMetricCalls: 40 });
    expect(again.result).toEqual(first.result);
    expect(again.task.evaluateCalls).toBe(0);
  });
});

describe('run --resume --budget N continues a finished or stopped run up to N calls', () => {
  const runDir = () => join(dir, 'extend');
  const budgetRecords = async () =>
    (await readFile(join(runDir(), 'log.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { t: string }).filter((r) => r.t === 'budget');
  let config: string;
  let first: OptimizeResult;

  beforeAll(async () => {
    // skipPerfectScore false: the run goes on to its budget once it is perfect, as a still-improving run would.
    config = await writeConfig('extend.json', { runDir: runDir(), maxMetricCalls: 120, skipPerfectScore: false });
    const io = memoryIo({ env: env() });
    expect(await runCli(['run', config, '--json'], io)).toBe(0);
    first = JSON.parse(lastLine(io.out())) as OptimizeResult;
  });

  it('a finished 120-call run resumed with --budget 240 ends between 121 and 240 calls, exit 0, paying only the new calls', async () => {
    expect(first.stopReason).toBe('maxMetricCalls');
    expect(first.metricCalls).toBeLessThanOrEqual(120);
    const chatBefore = server.requests.filter((r) => r.path.endsWith('/chat/completions')).length;
    const io = memoryIo({ env: env() });
    expect(await runCli(['run', config, '--resume', '--budget', '240', '--json'], io)).toBe(0);
    const extended = JSON.parse(lastLine(io.out())) as OptimizeResult;
    expect(extended.metricCalls).toBeGreaterThan(120);
    expect(extended.metricCalls).toBeLessThanOrEqual(240);
    // The first run's calls are replayed from the log: its candidates come first, unchanged.
    expect(extended.candidates.slice(0, first.candidates.length)).toEqual(first.candidates);
    const paidTaskCalls = server.requests.filter((r) => r.path.endsWith('/chat/completions')).length - chatBefore;
    // Metric calls plus reflections: never more than the new calls and the reflections they led to.
    expect(paidTaskCalls - (extended.reflectionCalls - first.reflectionCalls)).toBe(extended.metricCalls - first.metricCalls);
    expect(await budgetRecords()).toEqual([{ t: 'budget', maxMetricCalls: 240, maxCostUsd: null }]);
    expect(io.err()).toMatch(/Resuming the run in .*extend: \d+ metric calls logged, replayed without being paid again; budget raised from 120 to 240 metric calls\n/);
  });

  it('a further resume with the original config keeps the raised budget: the finished result, nothing paid', async () => {
    const requests = server.requests.length;
    const io = memoryIo({ env: env() });
    expect(await runCli(['run', config, '--resume', '--json'], io)).toBe(0);
    const again = JSON.parse(lastLine(io.out())) as OptimizeResult;
    expect(again.metricCalls).toBeGreaterThan(120);
    // The endpoint check is asked; no chat request.
    expect(server.requests.slice(requests).filter((r) => r.path.endsWith('/chat/completions'))).toEqual([]);
  });

  it('a smaller budget than the run was given is refused, naming both', async () => {
    const io = memoryIo({ env: env() });
    expect(await runCli(['run', config, '--resume', '--budget', '200'], io)).toBe(2);
    expect(io.err()).toContain('maxMetricCalls: 200 calls now, but the run was given 240 calls');
    expect(await budgetRecords()).toHaveLength(1);
  });

  it('the demo (2x2 batched, its last step narrowed to 120 calls, so the continuation leaves the logged path) stays within 240', async () => {
    const demoDir = join(dir, 'demo-extend');
    const demo = async (extra: string[]) => {
      const io = memoryIo();
      expect(await runCli(['demo', '--json', '--run-dir', demoDir, '--metric-call-ms', '0', '--reflection-ms', '0', ...extra], io)).toBe(0);
      return JSON.parse(lastLine(io.out())) as OptimizeResult;
    };
    const small = await demo(['--budget', '120']);
    const large = await demo(['--resume', '--budget', '240']);
    expect(small.metricCalls).toBeLessThanOrEqual(120);
    expect(large.metricCalls).toBeGreaterThan(120);
    expect(large.metricCalls).toBeLessThanOrEqual(240);
  });

  it('a larger maxCostUsd continues a run its dollar budget stopped, within the new cap, and is logged', async () => {
    const costDir = join(dir, 'extend-cost');
    const at = async (maxCostUsd: number) => {
      const path = await writeConfig(`cost-${maxCostUsd}.json`, { runDir: costDir, maxMetricCalls: undefined, maxCostUsd, maxTokens: 64, skipPerfectScore: false });
      const io = memoryIo({ env: env() });
      const code = await runCli(['run', path, '--json', ...(maxCostUsd > 0.003 ? ['--resume'] : [])], io);
      expect(code, io.err()).toBe(0);
      return JSON.parse(lastLine(io.out())) as OptimizeResult;
    };
    const first = await at(0.003);
    expect(first.stopReason).toBe('maxCostUsd');
    const more = await at(0.006);
    expect(more.costUsd).toBeGreaterThan(first.costUsd);
    expect(more.costUsd).toBeLessThanOrEqual(0.006);
    expect(more.metricCalls).toBeGreaterThan(first.metricCalls);
    const budgets = (await readFile(join(costDir, 'log.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { t: string }).filter((r) => r.t === 'budget');
    expect(budgets).toEqual([{ t: 'budget', maxMetricCalls: null, maxCostUsd: 0.006 }]);
  });
});
