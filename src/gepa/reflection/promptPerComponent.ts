// The shape the built-in prompt and the user's template share: one reflection prompt per component
// to rewrite, sent together, and each reply read into that component's new text (the text in its
// fenced block) or the reason it has none. A strategy of this shape only says how a prompt is written.
import type { ReflectiveDataset } from '../core/adapter.js';
import { extractInstruction } from '../proposer/extractInstruction.js';
import { promptContent } from '../proposer/promptImages.js';
import type { NewTexts, ReflectionAsk, ReflectionInput, ReflectionReply } from './reflectionStrategy.js';

/** Writes the prompt that rewrites `component` from its current text and records. */
export type PromptWriter = (component: string, currentText: string, records: ReflectiveDataset[string], input: ReflectionInput) => string;

/** One prompt per component, in the order chosen; as parts too when its records hold images. */
export function promptPerComponent(input: ReflectionInput, write: PromptWriter): ReflectionAsk[] {
  return input.components.map((component) => {
    const records = input.dataset[component] ?? [];
    const prompt = write(component, input.parent[component] ?? '', records, input);
    const content = promptContent(prompt, records);
    return { kind: 'prompt', prompt, component, ...(content ? { content } : {}) };
  });
}

/** Reply i is component i's: the text in its fenced block, or why there is none. */
export function readPerComponent(replies: readonly ReflectionReply[], input: ReflectionInput): NewTexts {
  const texts: Record<string, string> = {};
  const notes: Record<string, string> = {};
  input.components.forEach((component, i) => {
    const reply = replies[i];
    if (!reply || !reply.ok) {
      notes[component] = reply ? `reflection failed: ${reply.error}` : 'no reply';
      return;
    }
    const text = 'text' in reply ? extractInstruction(reply.text) : null;
    if (text === null) notes[component] = 'empty reply';
    else texts[component] = text;
  });
  return { texts, notes };
}
