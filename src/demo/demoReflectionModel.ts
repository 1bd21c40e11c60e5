// The simulated reflection LM of the demo: a LanguageModel that reads a buildReflectionPrompt
// prompt, decides on an edit (reflectionEdits.ts) and answers like a chat model, usually a short
// preamble and the new text in a fenced block. The reply depends only on (prompt, task seed).
import { Rng } from '../gepa/core/rng.js';
import type { LanguageModel, LmReply } from '../gepa/core/languageModel.js';
import { hashString } from './hash32.js';
import { proposeEdit } from './reflectionEdits.js';
import { readReflectionPrompt } from './reflectionPromptReader.js';
import { checkLatencyOptions, simulateLatency, type LatencyModel } from './simulatedLatency.js';

export interface DemoReflectionModelOptions extends LatencyModel {
  seed: number;
}

const PREAMBLES = [
  (note: string) => `Looking at the feedback, ${note}. Here is the revised instruction:`,
  (note: string) => `Here is an improved version (${note}).`,
  (note: string) => `${note.charAt(0).toUpperCase()}${note.slice(1)}.\n\nUpdated text:`,
  (note: string) => `Sure. In short, ${note}.`,
];
const CLOSINGS = [
  'This keeps everything that already worked.',
  'Let me know if you want the rules grouped differently.',
];

/** Wraps the new text the way chat models do: mostly fenced, sometimes tagged, rarely bare. */
export function formatReply(text: string, note: string, rng: Rng): string {
  const style = rng.next();
  if (style < 0.04) return text;
  const tag = style < 0.24 ? 'text' : style < 0.3 ? 'markdown' : '';
  const fenced = `\`\`\`${tag}\n${text}\n\`\`\``;
  const preamble = rng.next() < 0.9 ? `${rng.pick(PREAMBLES)(note)}\n\n` : '';
  const closing = rng.next() < 0.2 ? `\n\n${rng.pick(CLOSINGS)}` : '';
  return `${preamble}${fenced}${closing}`;
}

/**
 * A simulated reflection LM around a task's edit rule: its draws come from a hash of (prompt,
 * task seed), first the edit's, then the reply's wrapping; it sleeps its latency on the clock.
 */
export function createSimulatedReflectionModel(
  options: DemoReflectionModelOptions,
  propose: (prompt: string, rng: Rng) => { text: string; note: string },
): LanguageModel {
  checkLatencyOptions('reflectionMs', options.meanMs, options.jitter);
  return async (prompt: string, ctx?: { signal: AbortSignal }): Promise<LmReply> => {
    const promptHash = hashString(prompt, options.seed);
    await simulateLatency(options, promptHash, ctx?.signal);
    const rng = new Rng(promptHash);
    const edit = propose(prompt, rng);
    const text = formatReply(edit.text, edit.note, rng);
    return {
      text,
      usage: { promptTokens: Math.ceil(prompt.length / 4), completionTokens: Math.ceil(text.length / 4) },
    };
  };
}

export function createDemoReflectionModel(options: DemoReflectionModelOptions): LanguageModel {
  return createSimulatedReflectionModel(options, (prompt, rng) => proposeEdit(readReflectionPrompt(prompt), rng));
}
