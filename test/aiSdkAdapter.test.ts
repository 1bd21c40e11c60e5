// The adapter around an app's own AI SDK call (createAiSdkAdapter): a generateText agent with a
// tool, over real HTTP to the loopback server, optimized end to end with the tool calls in the
// reflective dataset; generateObject's object as the output; tokens and dollars from the
// result; a failed call counted by kind (a 404 stops the run loudly); cancellation passed on.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, generateObject, generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { optimize } from '../src/index.js';
import { createAiSdkLanguageModel } from '../src/entries/models.js';
import { createAiSdkAdapter } from '../src/entries/adapters.js';
import { costOf, type ModelPrice } from '../src/lm/priceTable.js';
import { addToolStep, startFakeOpenAIServer, type FakeOpenAIServer, type RecordedRequest } from './support/fakeOpenAIServer.js';
import { failedRun } from './support/failedRun.js';

const PRICES: Record<string, ModelPrice> = {
  'task-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6 },
  'reflect-big': { inputPerMTok: 2, outputPerMTok: 8 },
};

interface Question {
  question: string;
  answer: number;
}
const questions = (n: number, offset: number): Question[] =>
  Array.from({ length: n }, (_, i) => ({ question: `What is ${i + offset} + ${2 * i + 1}?`, answer: 3 * i + offset + 1 }));

const isReflection = (r: RecordedRequest) => r.body?.messages?.some((m) => m.content?.startsWith('You are improving')) === true;

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The server as a model with an `add` tool; `task-typo` is a model it does not have. */
function toolUsingServer() {
  return startFakeOpenAIServer({
    stepFor: (messages, _n, model) =>
      model === 'task-typo' ? { kind: 'status', status: 404, message: 'The model `task-typo` does not exist' } : addToolStep(messages),
  });
}

/** The app's own call: its system prompt is the candidate's, the rest is the app's code. */
function agentAdapter(s: FakeOpenAIServer, model = 'task-mini') {
  const provider = createOpenAICompatible({ name: 'app', baseURL: s.baseURL, apiKey: 'test-key', includeUsage: true });
  return createAiSdkAdapter<Question>({
    call: (texts, example, ctx) =>
      generateText({
        model: provider(model),
        system: texts.system_prompt,
        prompt: example.question,
        tools: { add: tool({ inputSchema: z.object({ a: z.number(), b: z.number() }), execute: async ({ a, b }) => a + b }) },
        stopWhen: stepCountIs(2),
        maxRetries: 0,
        abortSignal: ctx.signal,
      }),
    metric: (example, output) =>
      String(output).trim() === String(example.answer)
        ? { score: 1, feedback: 'Correct.' }
        : { score: 0, feedback: `Expected only the number ${example.answer}; the reply was ${JSON.stringify(output)}.` },
    describeInput: (example) => example.question,
    prices: PRICES,
  });
}

describe("an app's own AI SDK call as the adapter", () => {
  it('is optimized end to end: the reflection reads the tool calls, the prompt improves, dollars equal the server tally', async () => {
    const s = (server = await toolUsingServer());
    const provider = createOpenAICompatible({ name: 'gepa', baseURL: s.baseURL, apiKey: 'test-key', includeUsage: true });
    const result = await optimize({
      seedCandidate: { system_prompt: 'You are a calculator.' },
      trainset: questions(6, 1),
      valset: questions(5, 20),
      adapter: agentAdapter(s),
      reflectionLm: createAiSdkLanguageModel(provider('reflect-big'), { prices: PRICES, retryBaseDelayMs: 1 }),
      maxMetricCalls: 40,
      workers: 4,
    });
    expect(result.valScores[0]).toBe(0);
    expect(result.bestScore).toBe(1);
    expect(result.bestCandidate.system_prompt).toMatch(/Reply with only the final number\.$/);
    const reflection = s.requests.find(isReflection)!.body!.messages!.at(-1)!.content;
    expect(reflection).toContain('Tool Calls');
    expect(reflection).toMatch(/add\(\{"a":\d+,"b":\d+\}\) -> \d+/);
    expect(reflection).toContain('Expected only the number');
    const serverCost = s.requests.reduce(
      (sum, r) => (r.usage ? sum + costOf({ promptTokens: r.usage.prompt_tokens, completionTokens: r.usage.completion_tokens }, PRICES[String(r.body?.model)]!) : sum),
      0,
    );
    expect(result.costUsd).toBeCloseTo(serverCost, 12);
  });

  it('one evaluation: the output, every step’s tokens and their dollars, the tool call with its result in the trace', async () => {
    const s = (server = await toolUsingServer());
    const evaluation = await agentAdapter(s).evaluate({ system_prompt: 'Reply with only the final number.' }, { question: 'What is 2 + 5?', answer: 7 }, {
      captureTraces: true,
      signal: new AbortController().signal,
    });
    expect(evaluation).toMatchObject({ score: 1, output: '7', feedback: 'Correct.', trace: { toolCalls: ['add({"a":2,"b":5}) -> 7'] } });
    // Two requests (the tool call, then the answer): the usage is their sum.
    expect(s.requests).toHaveLength(2);
    const [first, second] = s.requests.map((r) => r.usage!);
    expect(evaluation.usage).toEqual({ promptTokens: first!.prompt_tokens + second!.prompt_tokens, completionTokens: first!.completion_tokens + second!.completion_tokens });
    expect(evaluation.costUsd).toBe(costOf(evaluation.usage!, PRICES['task-mini']!));
  });

  it('a model the server does not have (404) fails each call by kind and stops the run loudly', async () => {
    const s = (server = await toolUsingServer());
    const { result } = await failedRun(
      optimize({
        seedCandidate: { system_prompt: 'You are a calculator.' },
        trainset: questions(6, 1),
        valset: questions(5, 20),
        adapter: agentAdapter(s, 'task-typo'),
        reflectionLm: async () => 'unused',
        maxMetricCalls: 40,
      }),
    );
    expect(result.failures).toEqual({ total: 5, byKind: { 'http 404': 5 } });
    expect(result.error).toMatch(/HTTP 404: The model `task-typo` does not exist$/);
  });

  it("generateObject's object is the output the metric scores and the reflection reads", async () => {
    const model = new MockLanguageModelV3({
      modelId: 'task-mini',
      doGenerate: async () => ({
        content: [{ type: 'text', text: '{"sum": 7, "explanation": "2 + 5"}' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: { inputTokens: { total: 30, noCache: 30, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 12, text: 12, reasoning: undefined } },
        warnings: [],
        response: { modelId: 'task-mini' },
      }),
    });
    const adapter = createAiSdkAdapter<Question>({
      call: (texts, example, ctx) => generateObject({ model, system: texts.system_prompt, prompt: example.question, schema: z.object({ sum: z.number(), explanation: z.string() }), abortSignal: ctx.signal }),
      metric: (example, output) => ((output as { sum: number }).sum === example.answer ? 1 : 0),
      prices: PRICES,
    });
    const evaluation = await adapter.evaluate({ system_prompt: 'Add.' }, { question: 'What is 2 + 5?', answer: 7 }, { captureTraces: true, signal: new AbortController().signal });
    expect(evaluation).toMatchObject({ score: 1, output: { sum: 7, explanation: '2 + 5' }, usage: { promptTokens: 30, completionTokens: 12 } });
    expect(evaluation.costUsd).toBe(costOf({ promptTokens: 30, completionTokens: 12 }, PRICES['task-mini']!));
    const dataset = await adapter.makeReflectiveDataset!({ system_prompt: 'Add.' }, [{ example: { question: 'What is 2 + 5?', answer: 7 }, evaluation }], ['system_prompt']);
    expect(dataset).toEqual({
      system_prompt: [{ Inputs: '{"question":"What is 2 + 5?","answer":7}', 'Generated Outputs': '{"sum":7,"explanation":"2 + 5"}', Feedback: 'Score: 1' }],
    });
  });

  it("a failed call is a recorded failure with its kind (the app's own errors: adapter); a cancelled one is passed on", async () => {
    const notFound = new APICallError({ message: 'no such model', url: 'http://x/v1/chat/completions', requestBodyValues: {}, statusCode: 404 });
    const failing = createAiSdkAdapter<Question>({ call: async () => Promise.reject(notFound), metric: () => 1 });
    const evaluation = await failing.evaluate({ system_prompt: '' }, { question: 'q', answer: 1 }, { captureTraces: false, signal: new AbortController().signal });
    expect(evaluation).toEqual({
      score: 0,
      feedback: 'The model call failed, so there is no output to score: HTTP 404: no such model',
      failure: { kind: 'http', status: 404, message: 'HTTP 404: no such model' },
    });
    const buggy = createAiSdkAdapter<Question>({ call: async () => Promise.reject(new RangeError('the app broke')), metric: () => 1 });
    const broken = await buggy.evaluate({ system_prompt: '' }, { question: 'q', answer: 1 }, { captureTraces: false, signal: new AbortController().signal });
    expect(broken.failure).toEqual({ kind: 'adapter', message: 'the app broke' });
    const stop = new AbortController();
    stop.abort(new Error('stopped'));
    const cancelled = createAiSdkAdapter<Question>({ call: async (_t, _e, ctx) => Promise.reject(ctx.signal.reason), metric: () => 1 });
    await expect(cancelled.evaluate({ system_prompt: '' }, { question: 'q', answer: 1 }, { captureTraces: false, signal: stop.signal })).rejects.toThrow('stopped');
  });
});
