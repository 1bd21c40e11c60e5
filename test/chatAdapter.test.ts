// The chat adapter: how replies are scored under each metric, the feedback the reflection LM
// reads, the dollars it reports, a failing task model scored 0 with the error as feedback, and
// the JSONL loader's line-numbered errors. The task model is the real OpenAI chat model on a
// loopback server where it matters, a stub where only the adapter's logic is under test.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  containsAnswer,
  createChatAdapter,
  exactMatch,
  loadJsonlDataset,
  normalizeAnswer,
  type ChatTaskModel,
} from '../src/adapters/chatAdapter.js';
import { createOpenAIChatModel } from '../src/lm/openaiLanguageModel.js';
import { builtInPrices, costOf } from '../src/lm/priceTable.js';
import { startFakeOpenAIServer, type FakeOpenAIServer } from './support/fakeOpenAIServer.js';

const ctx = () => ({ captureTraces: false, signal: new AbortController().signal });
const replying =
  (text: string): ChatTaskModel =>
  async () =>
    text;

describe('metrics', () => {
  // [output, answer, expected]
  it.each([
    ['  Paris \n', 'paris', true],
    ['"Paris."', 'Paris', true],
    ['**PARIS**', 'paris', true],
    ['The capital is Paris', 'Paris', false],
    ['42.0', '42', true],
    ['1,000', '1000', true],
    ['$1,000', '1000', true],
    ['0.5', '.5', true],
    ['43', '42', false],
  ] as const)('exact-match: %j against %j is %s', (output, answer, expected) => {
    expect(exactMatch(output, answer)).toBe(expected);
  });

  it.each([
    ['The capital of France is Paris.', 'paris', true],
    ['Parisian food', 'Paris', false],
    ['So 6 * 7 = 42.', '42', true],
    ['The total is 1,000 apples', '1000', true],
    ['The answer is 14', '4', false],
    ['from 3-5 days', '5', true],
    ['negative: -5', '-5', true],
    ['New York City', 'new york', true],
  ] as const)('contains-answer: %j against %j is %s', (output, answer, expected) => {
    expect(containsAnswer(output, answer)).toBe(expected);
  });

  it('normalizes by trimming, case-folding, collapsing spaces and dropping a final period', () => {
    expect(normalizeAnswer('  New   York. ')).toBe('new york');
  });
});

describe('evaluate', () => {
  it('sends the candidate component as the system prompt and the input as the user message', async () => {
    const seen: unknown[] = [];
    const adapter = createChatAdapter({
      metric: 'exact-match',
      component: 'instructions',
      taskModel: async (messages) => {
        seen.push(messages);
        return '4';
      },
    });
    const evaluation = await adapter.evaluate({ instructions: 'Be terse.' }, { input: '2+2?', answer: '4' }, ctx());
    expect(seen).toEqual([{ system: 'Be terse.', user: '2+2?' }]);
    expect(evaluation).toEqual({
      score: 1,
      output: '4',
      feedback: 'Correct. The expected answer is "4" and the response gave it.',
    });
  });

  it('explains a wrong answer, and an answer buried in extra text under exact-match', async () => {
    const example = { input: 'What is 6 * 7?', answer: '42' };
    const wrong = await createChatAdapter({ metric: 'exact-match', taskModel: replying('41') }).evaluate(
      { system_prompt: '' },
      example,
      ctx(),
    );
    expect(wrong.score).toBe(0);
    expect(wrong.feedback).toBe('Incorrect. The expected answer is "42"; the response was "41".');

    const chatty = await createChatAdapter({ metric: 'exact-match', taskModel: replying('It is 42.') }).evaluate(
      { system_prompt: '' },
      example,
      ctx(),
    );
    expect(chatty.score).toBe(0);
    expect(chatty.feedback).toBe(
      'Incorrect. The expected answer is "42"; the response was "It is 42.". The response contains the correct ' +
        'answer but also other text: exact-match scoring compares the whole response, so it must be only the ' +
        'answer, with no explanation or formatting.',
    );

    const lenient = await createChatAdapter({ metric: 'contains-answer', taskModel: replying('It is 42.') }).evaluate(
      { system_prompt: '' },
      example,
      ctx(),
    );
    expect(lenient.score).toBe(1);

    const noNumber = await createChatAdapter({ metric: 'contains-answer', taskModel: replying('Forty-two') }).evaluate(
      { system_prompt: '' },
      example,
      ctx(),
    );
    expect(noNumber.feedback).toBe(
      'Incorrect. The expected answer is "42"; the response was "Forty-two". The answer is a number, but the response contains no number.',
    );
  });

  it('scores the extracted answer when an extractor is given, and quotes long replies in part', async () => {
    const adapter = createChatAdapter({
      metric: 'exact-match',
      taskModel: replying(`${'reasoning '.repeat(5)}\nAnswer: 42`),
      extractAnswer: (output) => output.split('Answer:').at(-1) ?? output,
      maxQuotedChars: 10,
    });
    expect((await adapter.evaluate({ system_prompt: '' }, { input: 'q', answer: '42' }, ctx())).score).toBe(1);
    const wrong = await adapter.evaluate({ system_prompt: '' }, { input: 'q', answer: '7' }, ctx());
    expect(wrong.feedback).toBe('Incorrect. The expected answer is "7"; the response was "reasoning " ... (51 more characters).');
  });

  it('scores a failed task-model call 0 with the error as feedback, and does not throw', async () => {
    const adapter = createChatAdapter({
      metric: 'exact-match',
      taskModel: async () => {
        throw Object.assign(new Error('gpt-4.1-mini: empty reply'), { costUsd: 0.001, kind: 'empty' });
      },
    });
    const evaluation = await adapter.evaluate({ system_prompt: 's' }, { input: 'q', answer: 'a' }, ctx());
    expect(evaluation).toEqual({
      score: 0,
      feedback: 'The task model call failed, so there is no response to score: gpt-4.1-mini: empty reply',
      costUsd: 0.001,
      // Marked as a failure of its kind, so the runtime counts it (and may stop a run that cannot succeed).
      failure: { kind: 'empty', message: 'gpt-4.1-mini: empty reply' },
    });
    const records = await adapter.makeReflectiveDataset!(
      { system_prompt: 's' },
      [{ example: { input: 'q', answer: 'a' }, evaluation }],
      ['system_prompt'],
    );
    expect(records).toEqual({
      system_prompt: [
        { Inputs: 'q', 'Generated Outputs': '(no output: the task model call failed)', Feedback: evaluation.feedback },
      ],
    });
  });

  it('rethrows when the call was cancelled: an aborted run is not a score', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    const adapter = createChatAdapter({
      metric: 'exact-match',
      taskModel: async (_m, { signal }) => {
        signal.throwIfAborted();
        return 'x';
      },
    });
    await expect(
      adapter.evaluate({ system_prompt: 's' }, { input: 'q', answer: 'a' }, { captureTraces: false, signal: controller.signal }),
    ).rejects.toThrow('stop');
  });
});

describe('with the OpenAI chat model on a loopback server', () => {
  let server: FakeOpenAIServer | undefined;
  afterEach(async () => {
    await server?.close();
  });
  const mini = builtInPrices['gpt-4.1-mini']!;

  it('reports the task model dollars, and a failure after retries as score 0 with the error', async () => {
    server = await startFakeOpenAIServer();
    server.script(
      { kind: 'reply', text: '42', usage: { prompt_tokens: 100, completion_tokens: 2 } },
      { kind: 'server-error' },
      { kind: 'server-error' },
    );
    const taskModel = createOpenAIChatModel({
      model: 'gpt-4.1-mini',
      baseURL: server.baseURL,
      maxRetries: 1,
      retryBaseDelayMs: 1,
      maxTokens: 64,
    });
    const adapter = createChatAdapter({ metric: 'exact-match', taskModel });
    const example = { input: 'What is 6 * 7?', answer: '42' };
    const ok = await adapter.evaluate({ system_prompt: 'Reply with only the number.' }, example, ctx());
    expect(ok).toMatchObject({ score: 1, output: '42', costUsd: costOf({ promptTokens: 100, completionTokens: 2 }, mini) });

    const failed = await adapter.evaluate({ system_prompt: 'Reply with only the number.' }, example, ctx());
    expect(failed.score).toBe(0);
    expect(failed.feedback).toMatch(
      /^The task model call failed, so there is no response to score: gpt-4\.1-mini at .*: gave up after 2 attempts: HTTP 500: The server had an error$/,
    );
    expect(server.requests).toHaveLength(3);

    // preamble 64, system: 27 bytes + 8, user: 14 bytes + 8, completion: maxTokens.
    expect(adapter.estimateMaxCostUsd!({ system_prompt: 'Reply with only the number.' }, example)).toBe(
      costOf({ promptTokens: 64 + 27 + 8 + 14 + 8, completionTokens: 64 }, mini),
    );
  });

  it('improves under the default responder once the prompt asks for only the number', async () => {
    server = await startFakeOpenAIServer();
    const adapter = createChatAdapter({
      metric: 'exact-match',
      taskModel: createOpenAIChatModel({ model: 'local', baseURL: server.baseURL }),
    });
    const example = { input: 'What is 12 + 30?', answer: '42' };
    const before = await adapter.evaluate({ system_prompt: 'You are helpful.' }, example, ctx());
    const after = await adapter.evaluate({ system_prompt: 'Reply with only the final number.' }, example, ctx());
    expect([before.score, after.score]).toEqual([0, 1]);
    expect(before.costUsd).toBeUndefined();
    expect('estimateMaxCostUsd' in adapter).toBe(false);
  });
});

describe('loadJsonlDataset', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  async function file(text: string): Promise<string> {
    dir = await mkdtemp(join(tmpdir(), 'gepa-dataset-'));
    const path = join(dir, 'rows.jsonl');
    await writeFile(path, text);
    return path;
  }

  it('reads one row per line, skipping blank lines', async () => {
    const path = await file('{"input": "a", "answer": "1"}\n\n{"input": "b", "answer": "2", "note": "x"}\r\n');
    expect(await loadJsonlDataset(path)).toEqual([
      { input: 'a', answer: '1' },
      { input: 'b', answer: '2' },
    ]);
  });

  it('names the line of every bad row', async () => {
    const path = await file(
      ['{"input": "a", "answer": "1"}', '{"input": "b"', '', '{"input": "c", "answer": 3}', '{"answer": "4"}'].join('\n'),
    );
    const error = await loadJsonlDataset(path).then(
      () => undefined,
      (e: Error) => e,
    );
    const lines = error!.message.split('\n');
    expect(lines[0]).toBe(`Invalid dataset ${path}:`);
    expect(lines[1]).toMatch(new RegExp(`^  ${path}:2: not valid JSON`));
    expect(lines[2]).toBe(
      `  ${path}:4: expected {"input": string, "answer": string}; answer: Invalid input: expected string, received number`,
    );
    expect(lines[3]).toBe(
      `  ${path}:5: expected {"input": string, "answer": string}; input: Invalid input: expected string, received undefined`,
    );
    expect(lines[4]).toBe('  (rows of another shape are for your own adapter: loadJsonlDataset(path, { raw: true }) reads each line as it is; a run config names the adapter with "adapter")');
    expect(lines).toHaveLength(5);
  });

  it('raw: any JSON per line, kept as it is (a user adapter\'s rows); bad JSON still named by line', async () => {
    const path = await file(['{"terms": [1, 2], "expected": 3}', '', '"just a string"', '{"input": 5}'].join('\n'));
    expect(await loadJsonlDataset(path, { raw: true })).toEqual([{ terms: [1, 2], expected: 3 }, 'just a string', { input: 5 }]);
    await expect(loadJsonlDataset(path)).rejects.toThrow(`${path}:1: expected {"input": string, "answer": string}`);
    await writeFile(path, '{"terms": [1]}\n{"terms": ');
    await expect(loadJsonlDataset(path, { raw: true })).rejects.toThrow(new RegExp(`${path}:2: not valid JSON`));
  });

  it('rejects an empty file and a missing one', async () => {
    const path = await file('\n\n');
    await expect(loadJsonlDataset(path)).rejects.toThrow(`Dataset ${path} has no rows`);
    await expect(loadJsonlDataset(join(dir!, 'missing.jsonl'))).rejects.toThrow(/^Cannot read dataset .*missing\.jsonl: ENOENT/);
  });
});
