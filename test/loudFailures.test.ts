// Endpoint-wide failures stop a run loudly instead of spending its budget scoring 0: every seed
// call failing (404 for a wrong model, 400, malformed replies) or ten alike in a row mid-run
// reject with RunFailedError (its partial result: stopReason 'error' and the cause), error events,
// no reflection paid for failure feedback, exit 1 from the CLI with one message, and a run
// directory that --resume continues once the cause is fixed.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { optimize } from '../src/index.js';
import { runCli } from '../src/cli/program.js';
import { createChatAdapter, type ChatExample } from '../src/adapters/chatAdapter.js';
import { createOpenAIChatModel, createOpenAILanguageModel } from '../src/lm/openaiLanguageModel.js';
import type { OptimizeResult } from '../src/gepa/core/optimizeResult.js';
import type { RunEvent } from '../src/gepa/core/runEvent.js';
import { startFakeOpenAIServer, type FakeOpenAIServer, type FakeStep, type RecordedRequest } from './support/fakeOpenAIServer.js';
import { memoryIo } from './support/memoryIo.js';
import { readRunLog } from '../src/storage/runLog.js';
import { ARITHMETIC_RUN_CONFIG, writeArithmeticDataset } from './support/arithmeticRun.js';
import { failedRun } from './support/failedRun.js';

const examples = (n: number, offset: number): ChatExample[] =>
  Array.from({ length: n }, (_, i) => ({ input: `What is ${i + offset} + ${2 * i + 1}?`, answer: String(3 * i + offset + 1) }));

const isReflection = (r: RecordedRequest) => r.body?.messages?.some((m) => m.content.startsWith('You are improving')) === true;

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function calculatorRun(baseURL: string, onEvent?: (e: RunEvent) => void) {
  const common = { baseURL, apiKey: 'test-key', maxTokens: 200, retryBaseDelayMs: 1, retryMaxDelayMs: 5 };
  return {
    seedCandidate: { system_prompt: 'You are a calculator.' },
    trainset: examples(6, 1),
    valset: examples(5, 20),
    adapter: createChatAdapter({ taskModel: createOpenAIChatModel({ ...common, model: 'gpt-4.1-mini' }), metric: 'exact-match' as const }),
    reflectionLm: createOpenAILanguageModel({ ...common, model: 'gpt-5-mini' }),
    workers: 4,
    maxMetricCalls: 300,
    ...(onEvent ? { onEvent } : {}),
  };
}

describe('endpoint-wide failures', () => {
  it.each<[string, FakeStep, RegExp, string]>([
    ['a 404 (wrong model name)', { kind: 'status', status: 404, message: 'The model `gpt-4.1-mini` does not exist' }, /HTTP 404: The model `gpt-4.1-mini` does not exist/, 'http 404'],
    ['a 400 on every call', { kind: 'status', status: 400, message: 'max_tokens is too large' }, /HTTP 400: max_tokens is too large/, 'http 400'],
    ['malformed replies', { kind: 'malformed' }, /malformed JSON in the reply body/, 'malformed'],
  ])('%s on every seed call fails the run (RunFailedError), naming the cause', async (_name, step, cause, label) => {
    server = await startFakeOpenAIServer();
    server.setMode(step);
    const events: RunEvent[] = [];
    const { result, message } = await failedRun(optimize(calculatorRun(server.baseURL, (e) => events.push(e))));
    expect(message).toBe(`the run failed: ${result.error}. 5 of 5 metric calls failed (${label} x5); best so far: candidate #0 (valset score 0.000)`);
    expect(result.error).toMatch(/^every call of the seed candidate's valset evaluation failed \(5 of 5\); the first: gpt-4.1-mini at http:\/\/127\.0\.0\.1:\d+\/v1: /);
    expect(result.error).toMatch(cause);
    expect(result.failures).toEqual({ total: 5, byKind: { [label]: 5 } });
    expect(result.metricCalls).toBe(5);
    expect(result.proposals).toEqual([]);
    expect(server.requests.filter(isReflection)).toEqual([]);
    const errors = events.filter((e): e is Extract<RunEvent, { type: 'error' }> => e.type === 'error');
    expect(errors.filter((e) => e.failure !== undefined)).toHaveLength(5);
    expect(errors.filter((e) => e.systemic)).toEqual([{ type: 'error', message: result.error, systemic: true }]);
  });

  it('ten failures alike in a row mid-run stop it, and no reflection is paid for a minibatch that all failed', async () => {
    server = await startFakeOpenAIServer();
    const s = server;
    let reflectionsBefore = -1;
    const { result } = await failedRun(
      optimize(
        calculatorRun(s.baseURL, (e) => {
          // The seed is scored on a healthy server; then every call gets a 400.
          if (e.type === 'front.updated' && reflectionsBefore < 0) {
            reflectionsBefore = s.requests.filter(isReflection).length;
            s.setMode({ kind: 'status', status: 400, message: 'bad request' });
          }
        }),
      ),
    );
    expect(result.valScores[0]).toBe(0);
    expect(result.error).toMatch(/^10 metric calls in a row failed with the same cause: gpt-4.1-mini at .*: HTTP 400: bad request$/);
    expect(result.failures?.byKind).toEqual({ 'http 400': result.failures?.total });
    expect(result.failures!.total).toBeGreaterThanOrEqual(10);
    expect(reflectionsBefore).toBe(0);
    expect(s.requests.filter(isReflection)).toEqual([]);
    expect(result.proposals.some((p) => p.reason === "every metric call of the parent's minibatch failed")).toBe(true);
    expect(result.metricCalls).toBeLessThan(60);
  });

  it('transient failures among successes do not stop a run', async () => {
    server = await startFakeOpenAIServer();
    // Every third call fails with a 400 that is not retried: failures, but never ten in a row.
    let n = 0;
    const s = server;
    const result = await optimize({
      ...calculatorRun(s.baseURL),
      maxMetricCalls: 60,
      adapter: createChatAdapter({
        metric: 'exact-match',
        taskModel: Object.assign(
          async (messages: { system: string; user: string }, ctx?: { signal: AbortSignal }) => {
            n++;
            if (n % 3 === 0) throw Object.assign(new Error('HTTP 400: flaky'), { kind: 'http', status: 400 });
            return createOpenAIChatModel({ baseURL: s.baseURL, apiKey: 'k', model: 'gpt-4.1-mini' })(messages, ctx);
          },
          {},
        ),
      }),
    });
    expect(result.stopReason).toBe('maxMetricCalls');
    expect(result.failures!.byKind['http 400']).toBe(Math.floor(n / 3));
    expect(result.failures!.total).toBeGreaterThan(5);
  });
});

describe('the CLI on an endpoint-wide failure', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gepa-loud-'));
    await writeArithmeticDataset(dir);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prints the error events to stderr, exits 1, and --resume continues the run once the model exists', async () => {
    server = await startFakeOpenAIServer({ models: ['gpt-4.1-mini', 'gpt-5-mini'] });
    const config = join(dir, 'run.json');
    await writeFile(
      config,
      JSON.stringify({ ...ARITHMETIC_RUN_CONFIG, runDir: 'runs/loud' }),
    );
    const env = { OPENAI_BASE_URL: server.baseURL };
    server.setMode({ kind: 'status', status: 404, message: 'The model `gpt-4.1-mini` does not exist' });
    const failed = memoryIo({ env, cwd: dir });
    expect(await runCli(['run', config, '--json'], failed)).toBe(1);
    const result = JSON.parse(failed.out().trim().split('\n').at(-1)!) as OptimizeResult;
    expect(result.stopReason).toBe('error');
    const stderr = failed.err();
    // The first failure of its kind, then the systemic stop, then the summary's cause and counts.
    expect(stderr).toMatch(/error: metric call failed: gpt-4.1-mini at .*HTTP 404: The model `gpt-4.1-mini` does not exist \(further failures of this kind are counted, not shown\)/);
    expect(stderr).toContain("error: stopping: every call of the seed candidate's valset evaluation failed (4 of 4)");
    // The progress line counts the same calls (the systemic stop is not one more), in words that agree.
    expect(stderr).toMatch(/\| 1 candidate \|.*\| 4 failed calls\n/);
    expect(stderr).toContain('stopped by an error');
    // One message last: what failed, the calls that failed of those made, what to do next.
    const last = stderr.trimEnd().split('\n').at(-1);
    expect(last).toBe(
      `gepa-actors: the run failed: ${result.error}. 4 of 4 metric calls failed (http 404 x4); best so far: candidate #0 (valset score 0.000). ` +
        `${join(dir, 'runs/loud')} keeps what was paid for: fix the cause and run the same command with --resume to continue (the same config; a model that never answered may be renamed, other changes need a new run directory)`,
    );
    expect(stderr.match(/HTTP 404/g)).toHaveLength(3);

    server.setMode(undefined);
    const resumed = memoryIo({ env, cwd: dir });
    expect(await runCli(['run', config, '--resume', '--json'], resumed)).toBe(0);
    // The resume line tells replayed calls from failed ones: none answered, the 4 failed calls made (and paid) again.
    expect(resumed.err()).toContain(`Resuming the run in ${join(dir, 'runs/loud')}: 4 failed metric calls logged, made again (the failed attempts count against the budget too)\n`);
    expect(resumed.err()).not.toContain('replayed without being paid again');
    const after = JSON.parse(resumed.out().trim().split('\n').at(-1)!) as OptimizeResult;
    // The resumed run reaches a perfect score, which now stops it (issue-15's perfectScore stop).
    expect(after.stopReason).toBe('perfectScore');
    expect(after.bestScore).toBe(1);
    expect(after.failures).toEqual({ total: 0, byKind: {} });
    // The 4 failed calls were paid, and tried again on resume: metricCalls counts both, as the log does.
    const logged = readRunLog(join(dir, 'runs/loud/log.jsonl')).records.filter((r) => r.t === 'eval');
    expect(logged.filter((r) => r.t === 'eval' && r.evaluation.failure !== undefined)).toHaveLength(4);
    expect(after.metricCalls).toBe(logged.length);
    // The report counts every process's calls too: it reads tokens and calls from the log.
    const report = await readFile(join(dir, 'runs/loud/report.html'), 'utf8');
    expect(report).toContain(`<tr class="model-usage" data-role="task"><td>task</td><td><code>gpt-4.1-mini</code></td><td class="num">${logged.length}</td>`);
    expect(report).toContain('Every call of the run, from its log');
  });

  it('a model that never answered may be corrected on --resume; once the recorded models answered, a change is refused saying to start a new runDir', async () => {
    server = await startFakeOpenAIServer({ models: ['gpt-4.1-mini', 'gpt-5-mini'] });
    const env = { OPENAI_BASE_URL: server.baseURL };
    const write = async (name: string, taskModel: string) => {
      const path = join(dir, name);
      await writeFile(path, JSON.stringify({ ...ARITHMETIC_RUN_CONFIG, taskModel, runDir: 'runs/misspelt' }));
      return path;
    };
    server.setMode({ kind: 'status', status: 404, message: 'The model `gpt-4.1-mimi` does not exist' });
    expect(await runCli(['run', await write('misspelt.json', 'gpt-4.1-mimi')], memoryIo({ env, cwd: dir }))).toBe(1);
    server.setMode(undefined);
    const corrected = memoryIo({ env, cwd: dir });
    expect(await runCli(['run', await write('corrected.json', 'gpt-4.1-mini'), '--resume', '--json'], corrected)).toBe(0);
    expect(corrected.err()).toContain('models that never answered renamed: taskModel: "gpt-4.1-mimi" in the run directory, "gpt-4.1-mini" now');
    const stored = JSON.parse(await readFile(join(dir, 'runs/misspelt/config.json'), 'utf8')) as { settings: { identity: { taskModel: string } } };
    expect(stored.settings.identity.taskModel).toBe('gpt-4.1-mini');
    // Now gpt-4.1-mini has answered: its calls cannot be mixed with another model's.
    const refused = memoryIo({ env, cwd: dir });
    expect(await runCli(['run', await write('changed.json', 'gpt-5-mini'), '--resume'], refused)).toBe(2);
    expect(refused.err()).toMatch(/its log holds \d+ answered calls of the recorded models, which cannot be mixed with another model's: to change a model, start a new runDir/);
  });
});
