// Optimizing the system prompt of an app's own AI SDK call: the app answers arithmetic questions
// with generateText and an `add` tool; createAiSdkAdapter runs that very call per example with the
// candidate's prompt, and the reflection model is an AI SDK model too (createAiSdkLanguageModel).
// Needs `npm install ai @ai-sdk/openai-compatible` and an OpenAI-compatible server that supports
// tools (OPENAI_BASE_URL, e.g. Ollama's http://localhost:11434/v1; OPENAI_API_KEY if it wants one).
// Any other provider works the same: replace `provider(...)` by e.g. anthropic('claude-...').
// Run: OPENAI_BASE_URL=... npx tsx examples/ai-sdk-app.ts [--task-model M] [--reflection-model M] [--budget 60]
// In your own project, import from 'gepa-actors' and its subpaths ('gepa-actors/demo', ...)
// instead of '../src/index.js' and '../src/entries/*.js'.
import { parseArgs } from 'node:util';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { optimize } from '../src/index.js';
import { createAiSdkLanguageModel } from '../src/entries/models.js';
import { createAiSdkAdapter } from '../src/entries/adapters.js';

const { values } = parseArgs({
  options: {
    'task-model': { type: 'string', default: 'qwen2.5:7b' },
    'reflection-model': { type: 'string', default: 'qwen2.5:7b' },
    budget: { type: 'string', default: '60' },
  },
});
const provider = createOpenAICompatible({
  name: 'local',
  baseURL: process.env.OPENAI_BASE_URL ?? 'http://localhost:11434/v1',
  apiKey: process.env.OPENAI_API_KEY ?? 'not-needed',
  includeUsage: true,
});

// The app's call, as the app makes it: only the system prompt is the optimizer's to change.
function answer(systemPrompt: string, question: string, abortSignal?: AbortSignal) {
  return generateText({
    model: provider(values['task-model']),
    system: systemPrompt,
    prompt: question,
    tools: {
      add: tool({
        description: 'Adds two numbers',
        inputSchema: z.object({ a: z.number(), b: z.number() }),
        execute: async ({ a, b }) => a + b,
      }),
    },
    stopWhen: stepCountIs(3),
    abortSignal,
  });
}

interface Question {
  question: string;
  answer: number;
}
const questions = (n: number, offset: number): Question[] =>
  Array.from({ length: n }, (_, i) => ({ question: `What is ${i + offset} + ${2 * i + 1}?`, answer: 3 * i + offset + 1 }));

const adapter = createAiSdkAdapter<Question>({
  // Pass the run's signal on, so that a stopped run stops the call.
  call: (texts, example, ctx) => answer(texts.system_prompt ?? '', example.question, ctx.signal),
  // The app wants the bare number; the feedback says so, for the reflection model to act on.
  metric: (example, output) =>
    String(output).trim() === String(example.answer)
      ? { score: 1, feedback: 'Correct.' }
      : { score: 0, feedback: `The app needs only the number ${example.answer}, nothing else; the reply was ${JSON.stringify(output)}.` },
  describeInput: (example) => example.question,
});

const result = await optimize({
  seedCandidate: { system_prompt: 'You are a helpful calculator.' },
  trainset: questions(6, 1),
  valset: questions(5, 20),
  adapter,
  reflectionLm: createAiSdkLanguageModel(provider(values['reflection-model']), { temperature: 1 }),
  maxMetricCalls: Number(values.budget),
  workers: 4,
});

console.log(`best valset score ${result.bestScore.toFixed(3)} (seed ${result.valScores[0]?.toFixed(3)}) after ${result.metricCalls} metric calls, ${result.reflectionCalls} reflections (${result.stopReason})`);
console.log(`best system prompt:\n${result.bestCandidate.system_prompt}`);
