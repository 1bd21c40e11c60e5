// The gepa-actors command line as a user meets it: `demo --json` in a real process (last line =
// the OptimizeResult), plain progress lines in a pipe, config errors that name the field and
// exit 2 before anything is written, `run` end to end against the loopback OpenAI-compatible
// server, an unreachable endpoint (exit 1), and Ctrl-C draining, then aborting, a run.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/program.js';
import type { OptimizeResult } from '../src/gepa/core/optimizeResult.js';
import { startFakeOpenAIServer, type FakeOpenAIServer } from './support/fakeOpenAIServer.js';
import { memoryIo } from './support/memoryIo.js';
import { ARITHMETIC_RUN_CONFIG, writeArithmeticDataset } from './support/arithmeticRun.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');
const INSTANT = ['--metric-call-ms', '0', '--reflection-ms', '0'];
// Tests that are not about the report keep the demo from creating runs/ in the repository.
const NO_REPORT = ['--no-report'];

function lastLine(text: string): string {
  return text.trimEnd().split('\n').at(-1) ?? '';
}

function expectOptimizeResult(value: unknown): asserts value is OptimizeResult {
  const r = value as OptimizeResult;
  expect(Array.isArray(r.candidates)).toBe(true);
  expect(r.candidates.length).toBe(r.parents.length);
  expect(r.valScores.length).toBe(r.candidates.length);
  expect(r.bestCandidate).toEqual(r.candidates[r.bestIndex]);
  expect(typeof r.metricCalls).toBe('number');
  expect(typeof r.stopReason).toBe('string');
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gepa-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('gepa-actors demo', () => {
  it('prints the OptimizeResult as JSON on the last line of stdout, progress on stderr (real process)', async () => {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'demo', '--json', '--budget', '120', ...NO_REPORT, ...INSTANT], {
      cwd: ROOT,
      env: { ...process.env, CI: 'true' },
    });
    const result: unknown = JSON.parse(lastLine(stdout));
    expectOptimizeResult(result);
    expect(result.metricCalls).toBeLessThanOrEqual(120);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    // Plain lines in a pipe: the seed, then one per accepted candidate.
    expect(stderr).toContain('seed candidate: valset 0.400');
    expect(stderr).toMatch(/\+ candidate #1 from #0: valset \d\.\d{3}/);
    expect(stderr).toContain('held-out test score');
  });

  it('is deterministic for a seed: the same flags give the same candidates', async () => {
    const a = memoryIo();
    const b = memoryIo();
    expect(await runCli(['demo', '--json', '--budget', '150', '--seed', '3', ...NO_REPORT, ...INSTANT], a)).toBe(0);
    expect(await runCli(['demo', '--json', '--budget', '150', '--seed', '3', '--workers', '2', ...NO_REPORT, ...INSTANT], b)).toBe(0);
    const ra = JSON.parse(lastLine(a.out())) as OptimizeResult;
    const rb = JSON.parse(lastLine(b.out())) as OptimizeResult;
    expect(rb.candidates).toEqual(ra.candidates);
    expect(rb.metricCalls).toBe(ra.metricCalls);
  });

  it('prints a readable summary without --json', async () => {
    const io = memoryIo();
    expect(await runCli(['demo', '--budget', '100', '--schedule', 'async:3', ...NO_REPORT, ...INSTANT], io)).toBe(0);
    expect(io.out()).toMatch(/^GEPA demo \(seed 0\): schedule async 3, 8 workers, budget 100 metric calls\n/);
    expect(io.out()).toMatch(/best valset score \d\.\d{3} \(candidate #\d+\), seed 0\.400/);
    expect(io.out()).toContain('best candidate, system_prompt:');
  });

  it.each([
    [['demo', '--workers', 'zero'], "option '--workers <W>' argument 'zero' is invalid"],
    [['demo', '--schedule', 'batched:2by2'], 'expected batched, batched:PxN'],
    [['demo', '--bogus'], "unknown option '--bogus'"],
    [['launch'], "unknown command 'launch'"],
    [['demo', '--budget', '10', ...INSTANT], 'maxMetricCalls: 10 cannot pay for evaluating the seed'],
    [['demo', '--inspect', '--no-report'], '--inspect writes inspect.jsonl into the run directory'],
    [['demo', '--resume'], '--resume continues the run in a run directory: add --run-dir DIR'],
  ])('exits 2 on invalid arguments: %j', async (argv, message) => {
    const io = memoryIo();
    expect(await runCli(argv, io)).toBe(2);
    expect(io.err()).toContain(message);
    expect(io.out()).toBe('');
  });

  it('mounts the worker command, which parses its own flags', async () => {
    const help = memoryIo();
    expect(await runCli(['worker', '--help'], help)).toBe(0);
    expect(help.out()).toContain('Usage: gepa-actors worker --adapter PATH[#EXPORT] --redis URL');
    const bad = memoryIo();
    expect(await runCli(['worker', '--adapter', 'adapter.js'], bad)).toBe(2);
    expect(bad.err()).toContain('--redis URL is required');
  });

  it('exits 0 on --help', async () => {
    const io = memoryIo();
    expect(await runCli(['demo', '--help'], io)).toBe(0);
    expect(io.out()).toContain('--schedule <schedule>');
    // The default as the flag spells it, not as JSON.
    expect(io.out()).toContain('(default: batched:2x2)');
    expect(io.out()).not.toContain('"kind"');
  });

  it('prints the package version on --version and exits 0', async () => {
    const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const io = memoryIo();
    expect(await runCli(['--version'], io)).toBe(0);
    expect(io.out()).toBe(`${version}\n`);
  });

  it.each([
    [['help', 'run'], 'Usage: gepa-actors run [options] <config>'],
    [['run', '-h'], 'Usage: gepa-actors run [options] <config>'],
    [['help', 'demo'], 'Usage: gepa-actors demo [options]'],
    [['demo', '-h'], 'Usage: gepa-actors demo [options]'],
    [['help', 'worker'], 'Usage: gepa-actors worker --adapter PATH[#EXPORT] --redis URL'],
    [['worker', '-h'], 'Usage: gepa-actors worker --adapter PATH[#EXPORT] --redis URL'],
  ])('shows help for %j and exits 0', async (argv, usage) => {
    const io = memoryIo();
    expect(await runCli(argv, io)).toBe(0);
    expect(io.out()).toContain(usage);
  });

  it('exits 2 without a command, after the usage', async () => {
    const io = memoryIo();
    expect(await runCli([], io)).toBe(2);
    expect(io.err()).toContain('Usage: gepa-actors [options] [command]');
  });

  it('writes report.html into a fresh runs/demo-<date>-<time>/ and prints its path last; never reuses one', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'gepa-demo-'));
    const today = () => new Date(2026, 11, 3, 9, 5, 7);
    const first = memoryIo({ cwd, today });
    expect(await runCli(['demo', '--budget', '60', ...INSTANT], first)).toBe(0);
    const path = lastLine(first.out()).replace(/^report: /, '');
    expect(path).toBe(join(cwd, 'runs/demo-20261203-090507/report.html'));
    expect(await readFile(path, 'utf8')).toContain('<svg');
    // The same second again: a new directory beside it, the first report untouched.
    const second = memoryIo({ cwd, today });
    expect(await runCli(['demo', '--budget', '60', ...INSTANT], second)).toBe(0);
    expect(lastLine(second.out())).toBe(`report: ${join(cwd, 'runs/demo-20261203-090507-2/report.html')}`);
    expect(existsSync(join(cwd, 'runs/demo-20261203-090507-2/report.html'))).toBe(true);
    // --run-dir chooses it; --no-report writes none and no run directory.
    const chosen = memoryIo({ cwd, today });
    expect(await runCli(['demo', '--budget', '60', '--run-dir', 'mine', ...INSTANT], chosen)).toBe(0);
    expect(lastLine(chosen.out())).toBe(`report: ${join(cwd, 'mine/report.html')}`);
    const none = memoryIo({ cwd, today: () => new Date(2026, 11, 3, 9, 6, 0) });
    expect(await runCli(['demo', '--budget', '60', '--no-report', ...INSTANT], none)).toBe(0);
    expect(none.out()).not.toContain('report:');
    expect(existsSync(join(cwd, 'runs/demo-20261203-090600'))).toBe(false);
    await rm(cwd, { recursive: true, force: true });
  });

  it('says so when it picks up the STOP file', async () => {
    const runDir = join(dir, 'stop-file');
    // A run stopped by Ctrl-C can be resumed; a STOP file written meanwhile is seen at once.
    const first = memoryIo({ onStderr: (text) => void (text.includes('+ candidate #1') && process.emit('SIGINT')) });
    expect(await runCli(['demo', '--json', '--run-dir', runDir, '--budget', '600', '--metric-call-ms', '2', '--reflection-ms', '5'], first)).toBe(0);
    expect((JSON.parse(lastLine(first.out())) as OptimizeResult).stopReason).toBe('stopped');
    await writeFile(join(runDir, 'STOP'), '');
    const resumed = memoryIo();
    expect(await runCli(['demo', '--json', '--run-dir', runDir, '--resume', '--budget', '600', '--metric-call-ms', '2', '--reflection-ms', '5'], resumed)).toBe(0);
    expect(resumed.err()).toContain(`STOP file found in ${runDir}: no new proposals; finishing the ones in flight.`);
    expect((JSON.parse(lastLine(resumed.out())) as OptimizeResult).stopReason).toBe('stopped');
  });

  it('words the summary: plural counts, the stop reason as a phrase', async () => {
    const io = memoryIo();
    expect(await runCli(['demo', '--budget', '60', ...NO_REPORT, ...INSTANT], io)).toBe(0);
    expect(io.out()).toMatch(/metric calls \d+\/60, reflections \d+, \d+ candidates? from \d+ proposals?\n/);
    expect(io.out()).toContain('stopped by maxMetricCalls');
    expect(io.out()).not.toMatch(/\b1 candidates\b|stopped: /);
  });

  it('refuses a non-empty run directory without --resume', async () => {
    const runDir = join(dir, 'busy');
    await mkdir(runDir, { recursive: true });
    await writeFile(join(runDir, 'something'), 'x');
    const io = memoryIo();
    expect(await runCli(['demo', '--run-dir', runDir, ...INSTANT], io)).toBe(2);
    // Not a run: --resume would not help either, so it is not suggested.
    expect(io.err()).toContain('already holds files that are not a run (1 entry). Choose an empty or new directory.');
  });

  it('drains on the first Ctrl-C and stops at once on the second, printing the result each time', async () => {
    const sigintListeners = process.listenerCount('SIGINT');
    // First signal after the first accepted candidate: no new proposals, in-flight ones finish.
    const drained = memoryIo({
      onStderr: (text) => {
        // process.emit runs the CLI's handlers without a real signal.
        if (text.includes('+ candidate #1')) process.emit('SIGINT');
      },
    });
    const code = await runCli(['demo', '--json', '--budget', '600', '--metric-call-ms', '2', '--reflection-ms', '5', ...NO_REPORT], drained);
    expect(code).toBe(0);
    const r = JSON.parse(lastLine(drained.out())) as OptimizeResult;
    expect(r.stopReason).toBe('stopped');
    expect(r.metricCalls).toBeLessThan(600);
    expect(drained.err()).toContain('Press Ctrl-C again to stop now');
    expect(process.listenerCount('SIGINT')).toBe(sigintListeners);

    const aborted = memoryIo({
      onStderr: (text) => {
        if (text.includes('+ candidate #1')) {
          process.emit('SIGINT');
          process.emit('SIGTERM');
        }
      },
    });
    expect(await runCli(['demo', '--json', '--budget', '600', '--metric-call-ms', '2', '--reflection-ms', '5', ...NO_REPORT], aborted)).toBe(0);
    expect((JSON.parse(lastLine(aborted.out())) as OptimizeResult).stopReason).toBe('aborted');
  });
});

describe('gepa-actors run', () => {
  let server: FakeOpenAIServer;
  const baseConfig = ARITHMETIC_RUN_CONFIG;
  const writeConfig = async (name: string, config: unknown) => {
    const path = join(dir, name);
    await writeFile(path, typeof config === 'string' ? config : JSON.stringify(config, null, 2));
    return path;
  };

  beforeAll(async () => {
    server = await startFakeOpenAIServer({ models: ['gpt-4.1-mini', 'gpt-5-mini'] });
    await writeArithmeticDataset(dir);
  });
  afterAll(async () => {
    await server.close();
  });

  it('runs a real optimization on the loopback server and writes report.html to runDir', async () => {
    const config = await writeConfig('good.json', { ...baseConfig, runDir: 'runs/good', maxCostUsd: 1 });
    const io = memoryIo({ env: { OPENAI_BASE_URL: server.baseURL } });
    expect(await runCli(['run', config, '--json'], io)).toBe(0);
    const result = JSON.parse(lastLine(io.out())) as OptimizeResult;
    expectOptimizeResult(result);
    expect(result.valScores[0]).toBe(0); // the seed answers chattily; exact-match fails
    expect(result.bestScore).toBe(1); // "Reply with only the final number." fixes it
    expect(result.metricCalls).toBeLessThanOrEqual(40);
    expect(result.costUsd).toBeGreaterThan(0);
    expect(existsSync(join(dir, 'runs/good/report.html'))).toBe(true);
    expect(server.requests.some((r) => r.path === '/v1/models')).toBe(true);
  });

  it('exits 2 on a bad config, naming every bad field, and writes nothing', async () => {
    const config = await writeConfig('bad.json', {
      ...baseConfig,
      metric: 'fuzzy',
      workers: 0,
      maxMetricCall: 40,
      runDir: 'runs/bad',
    });
    const io = memoryIo({ env: { OPENAI_BASE_URL: server.baseURL } });
    const before = server.requests.length;
    expect(await runCli(['run', config], io)).toBe(2);
    expect(io.err()).toContain('metric: must be one of "exact-match" or "contains-answer" (got "fuzzy")');
    expect(io.err()).toContain('workers: Too small');
    expect(io.err()).toContain('maxMetricCall: unknown field (did you mean "maxMetricCalls"?)');
    expect(existsSync(join(dir, 'runs/bad'))).toBe(false);
    expect(server.requests.length).toBe(before);
  });

  it.each([
    ['not JSON', '{ "seedCandidate": ', 'is not valid JSON'],
    ['no stop condition', { ...baseConfig, maxMetricCalls: undefined }, 'maxMetricCalls: at least one stop condition is required'],
    ['a dollar budget on an unpriced model', { ...baseConfig, taskModel: 'llama3', maxCostUsd: 1 }, 'prices: taskModel "llama3" has no known price'],
    ['a missing dataset', { ...baseConfig, valset: 'missing.jsonl' }, 'valset: Cannot read dataset'],
    ['a budget below the valset', { ...baseConfig, maxMetricCalls: 2 }, 'maxMetricCalls: 2 cannot pay'],
  ])('exits 2 on %s', async (_name, content, message) => {
    const config = await writeConfig('case.json', content);
    const io = memoryIo({ env: { OPENAI_BASE_URL: server.baseURL } });
    expect(await runCli(['run', config], io)).toBe(2);
    expect(io.err()).toContain(message);
  });

  it('--budget, --seed and --run-dir take the place of the file\'s maxMetricCalls, seed and runDir', async () => {
    // frontType: a settings field the config used to refuse as unknown.
    const config = await writeConfig('overrides.json', { ...baseConfig, seed: 1, runDir: 'runs/from-file', frontType: 'hybrid' });
    const cwd = join(dir, 'elsewhere');
    await mkdir(cwd, { recursive: true });
    const io = memoryIo({ env: { OPENAI_BASE_URL: server.baseURL }, cwd });
    expect(await runCli(['run', config, '--json', '--budget', '20', '--seed', '9', '--run-dir', 'flag-run'], io)).toBe(0);
    const result = JSON.parse(lastLine(io.out())) as OptimizeResult;
    expect(result.metricCalls).toBeLessThanOrEqual(20);
    const stored = JSON.parse(await readFile(join(cwd, 'flag-run/config.json'), 'utf8')) as { settings: Record<string, unknown> };
    expect([stored.settings.maxMetricCalls, stored.settings.seed, stored.settings.frontType]).toEqual([20, 9, 'hybrid']);
    // --run-dir is relative to where the command runs; the file's runDir is not used.
    expect(existsSync(join(cwd, 'flag-run/report.html'))).toBe(true);
    expect(existsSync(join(dir, 'runs/from-file'))).toBe(false);
  });

  it.each([
    [['--budget', '2'], 'maxMetricCalls: 2 cannot pay'],
    [['--budget', '0'], "option '--budget <B>' argument '0' is invalid"],
    [['--seed', '1.5'], "option '--seed <S>' argument '1.5' is invalid"],
  ])('checks the overrides: %j exits 2', async (flags, message) => {
    const config = await writeConfig('override-bad.json', baseConfig);
    const io = memoryIo({ env: { OPENAI_BASE_URL: server.baseURL } });
    expect(await runCli(['run', config, ...flags], io)).toBe(2);
    expect(io.err()).toContain(message);
  });

  it('words an unpriced run\'s cost as the report does ("unpriced"), never $0.0000', async () => {
    const config = await writeConfig('unpriced.json', { ...baseConfig, taskModel: 'llama3', reflectionModel: 'qwen3', maxMetricCalls: 12, runDir: 'runs/unpriced' });
    const io = memoryIo({ env: { OPENAI_BASE_URL: server.baseURL } });
    expect(await runCli(['run', config], io)).toBe(0);
    expect(io.out()).toMatch(/workers \d+% busy, cost unpriced, /);
    expect(io.out() + io.err()).not.toContain('$0.0000');
    expect(await readFile(join(dir, 'runs/unpriced/report.html'), 'utf8')).toContain('unpriced');
  });

  it('run --help lists the overrides', async () => {
    const io = memoryIo();
    expect(await runCli(['run', '--help'], io)).toBe(0);
    for (const flag of ['--budget <B>', '--seed <S>', '--run-dir <DIR>']) expect(io.out()).toContain(flag);
  });

  it('exits 1 with a clear message when the endpoint is unreachable, before any run', async () => {
    const config = await writeConfig('unreachable.json', { ...baseConfig, runDir: 'runs/unreachable' });
    const io = memoryIo({ env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' } });
    expect(await runCli(['run', config], io)).toBe(1);
    expect(io.err()).toContain('Cannot reach the OpenAI-compatible endpoint at http://127.0.0.1:9/v1');
    expect(existsSync(join(dir, 'runs/unreachable/report.html'))).toBe(false);
  });

  it('refuses an existing run directory without --resume and accepts it with --resume', async () => {
    const config = await writeConfig('again.json', { ...baseConfig, runDir: 'runs/again' });
    const env = { OPENAI_BASE_URL: server.baseURL };
    expect(await runCli(['run', config], memoryIo({ env }))).toBe(0);
    const refused = memoryIo({ env });
    expect(await runCli(['run', config], refused)).toBe(2);
    expect(refused.err()).toContain('Use --resume to continue it');
    expect(await runCli(['run', config, '--resume', '--json'], memoryIo({ env }))).toBe(0);
    expect(await readFile(join(dir, 'runs/again/report.html'), 'utf8')).toContain('<svg');
  });

  describe('--resume refuses a run whose models changed, with exit 2 naming the field, before any request', () => {
    const prices = { 'gpt-4.1-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6 } };
    const recorded = { ...baseConfig, maxMetricCalls: 20, temperature: 0.5, maxTokens: 64, prices, runDir: 'runs/identity' };
    beforeAll(async () => {
      const config = await writeConfig('identity.json', recorded);
      expect(await runCli(['run', config, '--json'], memoryIo({ env: { OPENAI_BASE_URL: server.baseURL } }))).toBe(0);
      const stored = JSON.parse(await readFile(join(dir, 'runs/identity/config.json'), 'utf8')) as { settings: Record<string, unknown> };
      expect(stored.settings.reflectionLm).toBe('openai:gpt-5-mini');
      expect(stored.settings.identity).toEqual({ taskModel: 'gpt-4.1-mini', reflectionModel: 'gpt-5-mini', metric: 'exact-match', component: 'system_prompt', prices, temperature: 0.5, maxTokens: 64 });
    });
    it.each([
      ['taskModel', { taskModel: 'gpt-5-mini' }, 'taskModel: "gpt-4.1-mini" in the run directory, "gpt-5-mini" now'],
      ['reflectionModel', { reflectionModel: 'gpt-4.1-mini' }, 'reflectionModel: "gpt-5-mini" in the run directory, "gpt-4.1-mini" now'],
      ['metric', { metric: 'contains-answer' }, 'metric: "exact-match" in the run directory, "contains-answer" now'],
      ['prices', { prices: { 'gpt-4.1-mini': { inputPerMTok: 0.8, outputPerMTok: 1.6 } } }, 'prices: {"gpt-4.1-mini":{"inputPerMTok":0.4'],
      ['temperature', { temperature: 0.7 }, 'temperature: 0.5 in the run directory, 0.7 now'],
      ['maxTokens', { maxTokens: undefined }, 'maxTokens: 64 in the run directory, not set now'],
    ])('%s', async (field, change, message) => {
      const config = await writeConfig(`identity-${field}.json`, { ...recorded, ...change });
      const io = memoryIo({ env: { OPENAI_BASE_URL: server.baseURL } });
      const before = server.requests.length;
      expect(await runCli(['run', config, '--resume'], io)).toBe(2);
      expect(io.err()).toContain(message);
      expect(io.err()).toContain('holds a run with a different config');
      expect(server.requests.length).toBe(before);
    });
    it('the same config resumes', async () => {
      const config = await writeConfig('identity-same.json', recorded);
      expect(await runCli(['run', config, '--resume'], memoryIo({ env: { OPENAI_BASE_URL: server.baseURL } }))).toBe(0);
    });
  });
});
