// gepa-actors as a library user gets it: the package is built and packed (`npm pack`), and the
// tarball installed with production dependencies only into a fresh ESM project, where the
// optional peers (bullmq, ioredis, @statelyai/inspect, the OpenTelemetry SDK, ai, node-llama-cpp)
// are absent. There, optimize() improves the demo task's seed, the bullmq executor, the worker
// command, the CLI's trace export, the AI SDK models and a local model name the packages to install,
// the CLI runs, and a TypeScript file using the public types checks without skipLibCheck (so no
// declaration of ours names a package the user does not have). Last, with `ai` and
// @ai-sdk/openai-compatible installed there, optimize() runs on AI SDK models against a flaky
// OpenAI-compatible server on loopback (npm takes them from its cache when it can).
//
// Offline: the fresh project gets a lock file holding our lock's production entries, so npm
// takes every tarball from its cache (which `npm ci`, run before the tests, has just filled)
// and never asks the registry. Without a lock file npm would need each package's metadata from
// the registry, which `npm ci` does not cache.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costOf } from '../src/lm/priceTable.js';
import { startFakeOpenAIServer } from './support/fakeOpenAIServer.js';
import { packageEntrySources } from './support/packageEntries.js';

const ROOT = join(import.meta.dirname, '..');
const exec = promisify(execFile);
/** Each import specifier of the package ('gepa-actors', 'gepa-actors/models', ...) -> its source module here. */
const ENTRY_SOURCES = packageEntrySources();
// Run by `npm test`, we inherit npm's description of this package (npm_package_*, the local
// prefix); the npm commands run in the fresh project must not see it.
const npmEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_(package_|lifecycle_|config_local_prefix$)/.test(key)));

interface LockEntry {
  dev?: boolean;
  link?: boolean;
  [field: string]: unknown;
}

interface PackageJson {
  name: string;
  version: string;
  license?: string;
  engines?: Record<string, string>;
  bin?: Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** The consumer's lock: gepa-actors from the tarball, and the production part of our own lock. */
function consumerLock(pkg: PackageJson, ownLock: { packages: Record<string, LockEntry> }, tarballSpec: string) {
  const packages: Record<string, unknown> = {
    '': { name: 'consumer', dependencies: { [pkg.name]: tarballSpec } },
    [`node_modules/${pkg.name}`]: {
      version: pkg.version,
      resolved: tarballSpec,
      license: pkg.license,
      dependencies: pkg.dependencies,
      peerDependencies: pkg.peerDependencies,
      peerDependenciesMeta: pkg.peerDependenciesMeta,
      bin: pkg.bin,
      engines: pkg.engines,
    },
  };
  for (const [path, entry] of Object.entries(ownLock.packages)) {
    if (path !== '' && !entry.dev && !entry.link) packages[path] = entry;
  }
  return { name: 'consumer', lockfileVersion: 3, requires: true, packages };
}

const SCRIPT = `
import { writeFileSync } from 'node:fs';
import { MissingDependencyError, optimize } from 'gepa-actors';
import { createAiSdkChatModel, createLocalChatModel, createOpenAIChatModel, createOpenAILanguageModel } from 'gepa-actors/models';
import { createChatAdapter, loadJsonlDataset } from 'gepa-actors/adapters';
import { createBullmqExecutor } from 'gepa-actors/bullmq';
import { createDemoTask } from 'gepa-actors/demo';

const task = createDemoTask({ seed: 0 });
const { seedCandidate, trainset, valset, adapter, reflectionLm } = task;
const demo = { seedCandidate, trainset, valset, adapter, reflectionLm };
const result = await optimize({ ...demo, maxMetricCalls: 200, workers: 4 });

const failure = (fn) => {
  try {
    fn();
    return 'no error';
  } catch (error) {
    return { name: error.name, message: error.message, isMissing: error instanceof MissingDependencyError };
  }
};
const executor = failure(() => createBullmqExecutor({ connection: 'redis://127.0.0.1:1' }));
const viaOptimize = await optimize({ ...demo, maxMetricCalls: 50, executor: { kind: 'bullmq', connection: 'redis://127.0.0.1:1' } }).then(
  () => 'no error',
  (error) => ({ name: error.name, message: error.message }),
);
const aiSdk = failure(() => createAiSdkChatModel({ provider: 'openai.chat', modelId: 'gpt-4.1-mini' }));
const chat = createChatAdapter({ taskModel: async () => '4', metric: 'exact-match' });
const chatScore = (await chat.evaluate({ system_prompt: 'Add.' }, { input: '2 + 2', answer: '4' }, { captureTraces: false, signal: new AbortController().signal })).score;
const factories = [createOpenAIChatModel, createOpenAILanguageModel, loadJsonlDataset].map((fn) => typeof fn);
// A local model without node-llama-cpp: the file passes the GGUF check, the load names the package.
writeFileSync('tiny.gguf', 'GGUF');
const local = await createLocalChatModel({ modelPath: 'tiny.gguf' }).load().then(
  () => 'no error',
  (error) => ({ name: error.name, message: error.message }),
);
console.log(JSON.stringify({ seedScore: result.valScores[0], bestScore: result.bestScore, metricCalls: result.metricCalls, executor, viaOptimize, aiSdk, chatScore, factories, local }));
`;

const TYPED = `
import { optimize, type Adapter, type Candidate, type OptimizeConfig, type OptimizeResult } from 'gepa-actors';
import { createDemoTask } from 'gepa-actors/demo';
import { createOpenAIChatModel, createOpenAILanguageModel, type OpenAIModelOptions } from 'gepa-actors/models';
import { createChatAdapter, loadJsonlDataset, type ChatExample } from 'gepa-actors/adapters';
import { createAiSdkChatModel, createAiSdkLanguageModel, type AiSdkModel } from 'gepa-actors/models';
import { createAiSdkAdapter } from 'gepa-actors/adapters';
import { createLocalChatModel, createLocalLanguageModel, type LocalModelOptions } from 'gepa-actors/models';

const task = createDemoTask({ seed: 1 });
const adapter: Adapter<unknown> = task.adapter;
const seed: Candidate = task.seedCandidate;
const config: OptimizeConfig<unknown> = { seedCandidate: seed, trainset: task.trainset, adapter, reflectionLm: task.reflectionLm, maxMetricCalls: 100 };
export const run: Promise<OptimizeResult> = optimize(config);
export const best: Promise<number> = run.then((result) => result.bestScore);
// The public types are real types, not an unresolved any: a wrong field is an error.
// @ts-expect-error maxMetricCalls is a number
export const wrong: OptimizeConfig<unknown> = { ...config, maxMetricCalls: 'many' };
// The run command's building blocks, with the model options a user sets.
const options: OpenAIModelOptions = {
  model: 'gpt-4.1-mini', baseURL: 'http://127.0.0.1:1/v1', apiKey: 'k', temperature: 0, maxTokens: 64, rpm: 60,
  timeoutMs: 1000, maxRetries: 1, prices: { 'gpt-4.1-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6 } },
};
export const chat: Adapter<ChatExample> = createChatAdapter({ taskModel: createOpenAIChatModel(options), metric: 'contains-answer' });
export const reflection: OptimizeConfig<ChatExample>['reflectionLm'] = createOpenAILanguageModel(options);
export const rows: Promise<ChatExample[]> = loadJsonlDataset('rows.jsonl');
export const raw: Promise<unknown[]> = loadJsonlDataset('rows.jsonl', { raw: true });
// The AI SDK factories and adapter type-check without \`ai\` installed: their types are our own.
const aiModel: AiSdkModel = { provider: 'openai.chat', modelId: 'gpt-4.1-mini' };
export const aiChat: Adapter<ChatExample> = createChatAdapter({ taskModel: createAiSdkChatModel(aiModel, { maxTokens: 64 }), metric: 'exact-match' });
export const aiReflection: OptimizeConfig<ChatExample>['reflectionLm'] = createAiSdkLanguageModel(aiModel, { prices: options.prices });
export const appCall: Adapter<ChatExample> = createAiSdkAdapter<ChatExample>({ call: async () => ({ text: '4' }), metric: (example, output) => (output === example.answer ? 1 : 0) });
// Local models: their types name no package the user lacks (node-llama-cpp is absent here).
const local: LocalModelOptions = { modelPath: 'm.gguf', temperature: 0.7, seed: 1, maxTokens: 64, template: 'none', sequences: 1 };
export const localChat: Adapter<ChatExample> = createChatAdapter({ taskModel: createLocalChatModel(local), metric: 'exact-match' });
export const localReflection: OptimizeConfig<ChatExample>['reflectionLm'] = createLocalLanguageModel(local);
`;

const AI_SDK_PRICES = {
  'task-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6 },
  'reflect-big': { inputPerMTok: 2, outputPerMTok: 8 },
};

// Arithmetic questions; the loopback server's task model answers chattily until told to give only the number.
const AI_SDK_SCRIPT = `
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { optimize } from 'gepa-actors';
import { createAiSdkChatModel, createAiSdkLanguageModel } from 'gepa-actors/models';
import { createChatAdapter } from 'gepa-actors/adapters';

const provider = createOpenAICompatible({ name: 'loopback', baseURL: process.env.BASE_URL, apiKey: 'not-needed', includeUsage: true });
const options = { prices: JSON.parse(process.env.PRICES), retryBaseDelayMs: 1, retryMaxDelayMs: 5 };
const examples = (n, offset) => Array.from({ length: n }, (_, i) => ({ input: \`What is \${i + offset} + \${2 * i + 1}?\`, answer: String(3 * i + offset + 1) }));
const result = await optimize({
  seedCandidate: { system_prompt: 'You are a calculator.' },
  trainset: examples(6, 1),
  valset: examples(5, 20),
  adapter: createChatAdapter({ taskModel: createAiSdkChatModel(provider('task-mini'), options), metric: 'exact-match' }),
  reflectionLm: createAiSdkLanguageModel(provider('reflect-big'), options),
  maxMetricCalls: 40,
  workers: 4,
  skipPerfectScore: false,
});
console.log(JSON.stringify({ seedScore: result.valScores[0], bestScore: result.bestScore, metricCalls: result.metricCalls, costUsd: result.costUsd, stopReason: result.stopReason }));
`;

let dir: string;
let project: string;
let packageName: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gepa-consumer-'));
  project = join(dir, 'project');
  await exec('npm', ['run', 'build'], { cwd: ROOT });
  // Built just above; prepare would only build it again.
  const { stdout } = await exec('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT });
  const [packed] = JSON.parse(stdout) as Array<{ filename: string }>;
  const tarballSpec = `file:../${packed!.filename}`;
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as PackageJson;
  packageName = pkg.name;
  const ownLock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  await mkdir(project);
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: { [pkg.name]: tarballSpec } }, null, 2));
  await writeFile(join(project, 'package-lock.json'), JSON.stringify(consumerLock(pkg, ownLock, tarballSpec), null, 2));
  await exec('npm', ['ci', '--omit=dev', '--offline', '--no-audit', '--no-fund'], { cwd: project, env: npmEnv });
}, 120_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a fresh project that installs the packed tarball', () => {
  it('gets the production dependencies and none of the optional peers', async () => {
    const { stdout } = await exec('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: project, env: npmEnv });
    const installed = stdout.split('\n').map((line) => line.split('node_modules/').pop());
    expect(installed).toEqual(expect.arrayContaining([packageName, 'xstate', 'zod', 'openai', 'commander', 'cli-progress']));
    expect(installed).toContain('@opentelemetry/api');
    for (const peer of ['ai', 'bullmq', 'ioredis', '@statelyai/inspect', 'p-limit', '@opentelemetry/sdk-trace-base', '@opentelemetry/exporter-trace-otlp-http', 'node-llama-cpp']) expect(installed).not.toContain(peer);
  });

  it('optimize() improves the demo seed; the bullmq executor names the packages to install', async () => {
    await writeFile(join(project, 'run.mjs'), SCRIPT);
    const { stdout } = await exec(process.execPath, ['run.mjs'], { cwd: project });
    const out = JSON.parse(stdout);
    expect(out.metricCalls).toBeLessThanOrEqual(200);
    expect(out.bestScore).toBeGreaterThan(out.seedScore);
    const message = 'the bullmq executor needs `npm install bullmq ioredis` (not found: bullmq, ioredis)';
    expect(out.executor).toEqual({ name: 'MissingDependencyError', message, isMissing: true });
    expect(out.viaOptimize).toEqual({ name: 'MissingDependencyError', message });
    expect(out.aiSdk).toEqual({
      name: 'MissingDependencyError',
      message: 'AI SDK models (createAiSdkChatModel, createAiSdkLanguageModel) needs `npm install ai` (not found: ai)',
      isMissing: true,
    });
    expect(out.chatScore).toBe(1);
    expect(out.factories).toEqual(['function', 'function', 'function']);
    expect(out.local).toEqual({ name: 'MissingDependencyError', message: 'local models (local:<path to a .gguf>) needs `npm install node-llama-cpp` (not found: node-llama-cpp)' });
  });

  it('resolves every entry of package.json "exports" from an ES module, each with the values its source exports', async () => {
    const specifiers = Object.keys(ENTRY_SOURCES);
    const script = `const out = {};\nfor (const s of ${JSON.stringify(specifiers)}) out[s] = Object.keys(await import(s)).sort();\nconsole.log(JSON.stringify(out));\n`;
    await writeFile(join(project, 'entries.mjs'), script);
    const { stdout } = await exec(process.execPath, ['entries.mjs'], { cwd: project });
    const expected: Record<string, string[]> = {};
    for (const [specifier, source] of Object.entries(ENTRY_SOURCES)) expected[specifier] = Object.keys((await import(source)) as object).sort();
    expect(specifiers.length).toBeGreaterThanOrEqual(5);
    expect(JSON.parse(stdout)).toEqual(expected);
  });

  it('the CLI runs the demo; its worker command names the packages to install', async () => {
    const bin = join(project, 'node_modules/.bin/gepa-actors');
    const demo = await exec(bin, ['demo', '--budget', '100', '--json'], { cwd: project });
    expect(JSON.parse(demo.stdout)).toMatchObject({ metricCalls: expect.any(Number) });
    const worker = await exec(bin, ['worker', '--adapter', 'adapter.js', '--redis', 'redis://127.0.0.1:1'], { cwd: project }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(worker.code).toBe(1);
    expect(worker.stderr).toContain('the gepa-actors worker needs `npm install bullmq ioredis`');
    // Asked to export traces, the CLI names the SDK packages to install (before any work).
    const traced = await exec(bin, ['demo', '--budget', '100', '--json'], { cwd: project, env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1' } }).then(
      () => ({ code: 0, stdout: '', stderr: '' }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(traced.code).toBe(1);
    expect(traced.stdout).toBe('');
    expect(traced.stderr).toContain('exporting OpenTelemetry traces (OTEL_EXPORTER_OTLP_ENDPOINT is set) needs `npm install @opentelemetry/sdk-trace-base @opentelemetry/exporter-trace-otlp-http @opentelemetry/resources`');
  });

  it('a TypeScript file using the public types checks (moduleResolution nodenext, every entry imported), without skipLibCheck', async () => {
    await writeFile(join(project, 'typed.ts'), TYPED);
    // Every entry resolves under nodenext, and only the entries do: a path inside the package is refused.
    const entries = Object.keys(ENTRY_SOURCES).map((specifier, i) => `import type * as entry${i} from '${specifier}';\nexport type Entry${i} = typeof entry${i};`);
    await writeFile(join(project, 'entries.ts'), [...entries, "// @ts-expect-error not an entry of the package's exports", "import type * as inside from 'gepa-actors/dist/src/index.js';", 'export type Inside = typeof inside;', ''].join('\n'));
    const tsconfig = {
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        // A Node project has @types/node; ours stands in for it (nothing else is looked up there).
        typeRoots: [join(ROOT, 'node_modules/@types')],
        types: ['node'],
      },
      files: ['typed.ts', 'entries.ts'],
    };
    await writeFile(join(project, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const result = await exec(process.execPath, [tsc, '-p', project], { cwd: project }).then(
      () => ({ code: 0, stdout: '' }),
      (error: { code: number; stdout: string }) => error,
    );
    expect(result.stdout).toBe('');
    expect(result.code).toBe(0);
  });

  it('with ai and @ai-sdk/openai-compatible installed, optimize() on AI SDK models completes against a flaky loopback server, its cost the server tally', async () => {
    // The versions our own tests run on, so npm finds them in its cache.
    const versionOf = async (name: string) => (JSON.parse(await readFile(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
    const packages = await Promise.all(['ai', '@ai-sdk/openai-compatible'].map(async (name) => `${name}@${await versionOf(name)}`));
    await exec('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...packages], { cwd: project, env: npmEnv });
    const server = await startFakeOpenAIServer({ faults: { seed: 5, rateLimit: 0.2, serverError: 0.05, retryAfterMs: 1 } });
    try {
      await writeFile(join(project, 'ai-sdk.mjs'), AI_SDK_SCRIPT);
      const { stdout } = await exec(process.execPath, ['ai-sdk.mjs'], { cwd: project, env: { ...process.env, BASE_URL: server.baseURL, PRICES: JSON.stringify(AI_SDK_PRICES) } });
      const out = JSON.parse(stdout) as { seedScore: number; bestScore: number; metricCalls: number; costUsd: number; stopReason: string };
      expect(server.requests.filter((r) => r.step === 'rate-limit' || r.step === 'server-error').length).toBeGreaterThan(3);
      expect(new Set(server.requests.map((r) => r.body?.model))).toEqual(new Set(['task-mini', 'reflect-big']));
      expect(out.stopReason).toBe('maxMetricCalls');
      expect(out.metricCalls).toBeLessThanOrEqual(40);
      expect(out.bestScore).toBeGreaterThan(out.seedScore);
      const tally = server.requests.reduce((sum, r) => {
        const price = AI_SDK_PRICES[String(r.body?.model) as keyof typeof AI_SDK_PRICES];
        return r.usage ? sum + costOf({ promptTokens: r.usage.prompt_tokens, completionTokens: r.usage.completion_tokens }, price) : sum;
      }, 0);
      expect(out.costUsd).toBeGreaterThan(0);
      expect(out.costUsd).toBeCloseTo(tally, 12);
    } finally {
      await server.close();
    }
  }, 120_000);
});
