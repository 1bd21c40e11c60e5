// A fresh user's optimizeAnything program run by the real command, offline: an evaluator module
// and a reflection module written into an empty folder, a config naming them with stoppers by
// name, objective and background; `gepa-actors run config.json --json` with no key and no
// endpoint reaches the threshold, the last stdout line the result. A refiner module joins in
// place. A buggy evaluator fails the run (exit 1, one message, the run directory kept), and
// `--resume` continues it once the user has fixed the module.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/program.js';
import { memoryIo } from './support/memoryIo.js';

const ROOT = join(import.meta.dirname, '..');
// The user's folder is not this project's: tsx is loaded by its path.
const TSX = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const exec = promisify(execFile);

// The checker wants five words; its side information says which are missing.
const evaluatorModule = (bug: string) => `
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo'];
export async function evaluate(candidate) {
  ${bug}
  const missing = WORDS.filter((w) => !candidate.split(/\\s+/).includes(w));
  return { score: (WORDS.length - missing.length) / WORDS.length, sideInfo: { Missing: missing.join(', ') || 'nothing' } };
}
`;
const EVALUATOR = evaluatorModule('');
// A bug that only longer candidates hit: the seed is scored, no proposed candidate ever is.
const BUGGY_EVALUATOR = evaluatorModule("if (candidate.length > 4) throw new TypeError('Cannot read properties of undefined (reading \\'score\\')');");

// The user's reflection model: an async (prompt) => string that adds the first missing word.
const REFLECT = `
export async function reflect(prompt) {
  const current = /## The current artifact\\n\`\`\`\\n([\\s\\S]*?)\\n\`\`\`/.exec(prompt)?.[1] ?? '';
  const missing = /## Missing\\n([a-z]+)/.exec(prompt)?.[1];
  return '\`\`\`\\n' + (missing ? current + ' ' + missing : current) + '\\n\`\`\`';
}
`;

// The refiner: reads the candidate and the last attempt's Missing, answers the candidate with two words more.
const REFINE = `
export const calls = [];
export async function refine(prompt) {
  calls.push(prompt.length);
  const blocks = [...prompt.matchAll(/\`\`\`json\\n([\\s\\S]*?)\\n\`\`\`/g)].map((m) => JSON.parse(m[1]));
  const attempts = blocks[1];
  const missing = String(attempts[attempts.length - 1]?.sideInfo?.Missing ?? '').split(', ').filter((w) => /^[a-z]+$/.test(w));
  return JSON.stringify({ candidate: [blocks[0].candidate, ...missing.slice(0, 2)].join(' ') });
}
`;

const CONFIG = {
  seedCandidate: 'Say:',
  evaluator: './evaluate.mjs#evaluate',
  reflectionModel: './reflect.mjs#reflect',
  objective: 'Name every word the checker needs.',
  background: 'The checker wants five words of the NATO alphabet, in any order.',
  stopWhen: [{ scoreThreshold: 0.9 }, { timeout: '10m' }, { noImprovement: 20 }, { file: 'STOP' }, { maxCandidates: 50 }],
  runDir: 'run',
};

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'gepa-anything-program-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** A fresh folder holding the user's program: the modules and config.json. */
async function program(name: string, files: Record<string, string>, config: Record<string, unknown>): Promise<string> {
  const dir = join(scratch, name);
  await rm(dir, { recursive: true, force: true });
  await import('node:fs/promises').then((fs) => fs.mkdir(dir, { recursive: true }));
  for (const [file, text] of Object.entries(files)) await writeFile(join(dir, file), text);
  await writeFile(join(dir, 'config.json'), JSON.stringify(config, null, 2));
  return dir;
}

/** The real command in its own process, offline: no key, no endpoint in its environment. */
async function gepaActors(args: readonly string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: Record<string, string | undefined> = { ...process.env, CI: 'true' };
  for (const key of Object.keys(env)) if (key.startsWith('OPENAI_') || key.startsWith('OTEL_')) delete env[key];
  return exec(process.execPath, ['--import', TSX, join(ROOT, 'src/cli.ts'), ...args], { cwd, env }).then(
    (done) => ({ code: 0, stdout: done.stdout, stderr: done.stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

const lastJson = (stdout: string) => JSON.parse(stdout.trimEnd().split('\n').at(-1) ?? '') as { bestScore: number; bestCandidate: unknown; stopReason: string; candidates: unknown[]; metricCalls: number };

describe('the command runs an optimizeAnything program offline', () => {
  it('an evaluator module, a reflection module and stoppers by name reach the threshold; --json prints the result last', async () => {
    const dir = await program('fresh', { 'evaluate.mjs': EVALUATOR, 'reflect.mjs': REFLECT }, CONFIG);
    const { code, stdout, stderr } = await gepaActors(['run', 'config.json', '--json'], dir);
    expect(code, stderr).toBe(0);
    const result = lastJson(stdout);
    expect(result.bestScore).toBeGreaterThanOrEqual(0.9);
    expect(result.stopReason).toBe('scoreThreshold');
    // A string seed gives strings back, as optimizeAnything() does.
    expect(result.bestCandidate).toBe('Say: alpha bravo charlie delta echo');
    expect(result.candidates[0]).toBe('Say:');
    expect(stderr).toContain('stopped by scoreThreshold (the stopper scoreThreshold(0.9))');
    expect(existsSync(join(dir, 'run', 'report.html'))).toBe(true);
  });

  it("a refiner module joins in place: refined candidates are candidates of their own, each score its candidate's", async () => {
    const dir = await program('refined', { 'evaluate.mjs': EVALUATOR, 'reflect.mjs': REFLECT, 'refine.mjs': REFINE }, { ...CONFIG, runDir: undefined, refiner: { maxRefinements: 1, refinerModel: './refine.mjs#refine' } });
    const io = memoryIo({ cwd: dir, env: {} });
    expect(await runCli(['run', 'config.json', '--json'], io), io.err()).toBe(0);
    const result = lastJson(io.out()) as ReturnType<typeof lastJson> & { valScores: number[]; parents: number[][] };
    expect(result.stopReason).toBe('scoreThreshold');
    // The seed, refined to two words more: a candidate of its own (parent 0) with its own score.
    expect(result.candidates.slice(0, 2)).toEqual(['Say:', 'Say: alpha bravo']);
    expect(result.valScores.slice(0, 2)).toEqual([0, 0.4]);
    expect(result.parents[1]).toEqual([0]);
    expect(result.bestScore).toBe(result.valScores[result.candidates.indexOf(result.bestCandidate)]);
  });

  it('a callbacks module that throws is a warning on stderr, once per callback and method, and the run goes on', async () => {
    const CALLBACKS = "export const callbacks = { onIterationStart() { throw new Error('dashboard down'); } };";
    const dir = await program('callbacks', { 'evaluate.mjs': EVALUATOR, 'reflect.mjs': REFLECT, 'callbacks.mjs': CALLBACKS }, { ...CONFIG, runDir: undefined, callbacks: './callbacks.mjs' });
    const io = memoryIo({ cwd: dir, env: {} });
    expect(await runCli(['run', 'config.json', '--json'], io), io.err()).toBe(0);
    expect(io.err().match(/warning: callbacks\[0\]\.onIterationStart threw: dashboard down\n/g)).toHaveLength(1);
    expect(lastJson(io.out()).stopReason).toBe('scoreThreshold');
  });

  it('stoppers by name are checked with the config: a wrong name is refused listing the names, before any call', async () => {
    const dir = await program('bad-stopper', { 'evaluate.mjs': EVALUATOR, 'reflect.mjs': REFLECT }, { ...CONFIG, stopWhen: [{ scoreTreshold: 0.9 }, { timeout: 'soon' }] });
    const io = memoryIo({ cwd: dir, env: {} });
    expect(await runCli(['run', 'config.json'], io)).toBe(2);
    expect(io.err()).toContain(
      'stopWhen[0]: must be one of "scoreThreshold", "timeout", "noImprovement", "file", "maxCandidates", "maxMetricCalls", "maxCostUsd", "maxProposals", "any" or "all" (got "scoreTreshold")',
    );
    expect(io.err()).toContain('stopWhen[1].timeout: must be a duration, e.g. "10m", "30s", "2h", or milliseconds');
    expect(existsSync(join(dir, 'run'))).toBe(false);
  });

  it('a batchEvaluator module scores a minibatch per call; with captureStdio what it prints reaches the reflection, not the terminal', async () => {
    const BATCH = `
export async function evaluateBatch(candidate, examples) {
  console.log('checked ' + examples.length + ' examples');
  return examples.map((e) => (candidate.split(/\\s+/).includes(e.word) ? 1 : { score: 0, sideInfo: { Missing: e.word } }));
}
`;
    // The reflection module keeps the prompts it is given, beside itself.
    const KEEPING_REFLECT = `import { appendFileSync } from 'node:fs';\n${REFLECT.replace('export async function reflect(prompt) {', "export async function reflect(prompt) {\n  appendFileSync(new URL('./prompts.txt', import.meta.url), prompt);")}`;
    const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo'].map((word) => JSON.stringify({ word })).join('\n');
    const config = { seedCandidate: 'Say:', batchEvaluator: './evaluate.mjs', captureStdio: true, dataset: './words.jsonl', reflectionModel: './reflect.mjs#reflect', objective: 'Name every word.', maxMetricCalls: 300, stopWhen: [{ scoreThreshold: 1 }] };
    const dir = await program('batch', { 'evaluate.mjs': BATCH, 'reflect.mjs': KEEPING_REFLECT, 'words.jsonl': words }, config);
    const io = memoryIo({ cwd: dir, env: {} });
    expect(await runCli(['run', 'config.json', '--json'], io), io.err()).toBe(0);
    const result = lastJson(io.out());
    expect(result.stopReason).toBe('scoreThreshold');
    expect(String(result.bestCandidate).split(' ').sort()).toEqual(['Say:', 'alpha', 'bravo', 'charlie', 'delta', 'echo']);
    expect(await readFile(join(dir, 'prompts.txt'), 'utf8')).toMatch(/checked \d examples/);
    expect(io.out() + io.err()).not.toContain('checked');

    // One of the two, and captureStdio only with an evaluator: refused before any call, naming the field.
    const both = await program('both', { 'evaluate.mjs': BATCH, 'reflect.mjs': REFLECT, 'words.jsonl': words }, { ...config, evaluator: './evaluate.mjs#evaluateBatch' });
    const refused = memoryIo({ cwd: both, env: {} });
    expect(await runCli(['run', 'config.json'], refused)).toBe(2);
    expect(refused.err()).toContain('batchEvaluator: give "evaluator" (one example per call) or "batchEvaluator" (many per call), not both');
  });

  it('a buggy evaluator fails the run: exit 1, one message, the run directory kept; fixed, --resume continues it', async () => {
    const dir = await program('buggy', { 'evaluate.mjs': BUGGY_EVALUATOR, 'reflect.mjs': REFLECT }, { ...CONFIG, maxMetricCalls: 20 });
    // In this process (a child per command would cost seconds): the loader imports a module edited since afresh.
    const command = async (args: string[]) => {
      const io = memoryIo({ cwd: dir, env: {} });
      const code = await runCli(args, io);
      return { code, stdout: io.out(), stderr: io.err() };
    };
    const failed = await command(['run', 'config.json', '--json']);
    expect(failed.code).toBe(1);
    const last = failed.stderr.trimEnd().split('\n').at(-1);
    expect(last).toMatch(
      /^gepa-actors: the run failed: no proposed candidate could be evaluated: every metric call of (?:the one proposed candidate|both proposed candidates|all \d+ proposed candidates) failed; the first failed call: .*Cannot read properties of undefined \(reading 'score'\)\. (\d+) of \d+ metric calls failed \(adapter x\1\); best so far: candidate #0 \(valset score 0\.000\)\. .*run keeps what was paid for: fix the cause and run the same command with --resume to continue/,
    );
    // The partial result is still the last stdout line, and the run directory holds what was paid for.
    expect(lastJson(failed.stdout).stopReason).toBe('error');
    expect(existsSync(join(dir, 'run', 'config.json'))).toBe(true);
    expect((await readFile(join(dir, 'run', 'log.jsonl'), 'utf8')).length).toBeGreaterThan(0);

    await writeFile(join(dir, 'evaluate.mjs'), EVALUATOR);
    const resumed = await command(['run', 'config.json', '--json', '--resume', '--budget', '60']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/metric calls logged, replayed without being paid again; \d+ failed metric calls? logged, made again/);
    const result = lastJson(resumed.stdout);
    expect(result.stopReason).toBe('scoreThreshold');
    expect(result.bestScore).toBeGreaterThanOrEqual(0.9);
  });
});
