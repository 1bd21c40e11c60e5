// The prompt that asks the reflection LM for a better component text: the current text in a
// fenced block, then the records rendered as markdown (# Example N, ## key, ### nested key),
// then the request to answer inside a fenced block. With a task framing (optimizeAnything's
// objective and background) the prompt speaks of an artifact and states the goal and the domain.
// An image in the records stands as a marker (promptImages.ts).
import { imageMarker, isImagePart } from './promptImages.js';

/** What the artifact is for, in the user's words: optimizeAnything's `objective` and `background`. */
export interface ReflectionContext {
  /** What the artifact is for; stated in the prompt when given. */
  objective?: string;
  /** Domain knowledge and constraints; stated in the prompt when given. */
  background?: string;
}

function renderValue(value: unknown, depth: number): string {
  if (value === null || value === undefined) return '(none)';
  if (isImagePart(value)) return imageMarker(value);
  if (typeof value === 'string') return value.trim() === '' ? '(empty)' : value.trim();
  if (typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return value.map((v, i) => `${i + 1}. ${renderValue(v, depth + 1)}`).join('\n');
  const heading = '#'.repeat(Math.min(depth + 1, 6));
  return Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `${heading} ${k}\n${renderValue(v, depth + 1)}`)
    .join('\n\n');
}

/** `# Example N` per record, `## key` per field, deeper objects one heading level down. */
export function renderRecords(records: ReadonlyArray<Record<string, unknown>>): string {
  return records
    .map((record, i) => `# Example ${i + 1}\n${renderValue(record, 1)}`)
    .join('\n\n');
}

/** The built-in reflection prompt for one component: its current text and its reflective records as markdown. */
export function buildReflectionPrompt(
  component: string,
  currentText: string,
  records: ReadonlyArray<Record<string, unknown>>,
  context?: ReflectionContext,
): string {
  if (context) return framedReflectionPrompt(component, currentText, renderRecords(records), context);
  return reflectionPromptAround(component, currentText, renderRecords(records));
}

/** The goal and the domain's constraints, as sections; empty when neither was given. */
export function framingSections(context: ReflectionContext): string[] {
  const sections: string[] = [];
  if (context.objective?.trim()) sections.push('## What it is for', context.objective.trim(), '');
  if (context.background?.trim()) sections.push('## What to know about the domain', context.background.trim(), '');
  return sections;
}

/**
 * optimizeAnything's prompt: the artifact may be a prompt, code, a configuration, anything
 * scored by the user's evaluator, so it speaks of an artifact and of the evaluator's side
 * information rather than of an LLM system's inputs and outputs.
 */
function framedReflectionPrompt(component: string, currentText: string, renderedRecords: string, context: ReflectionContext): string {
  const goal = context.objective?.trim() ? ' toward the goal above' : '';
  const rules = context.background?.trim() ? ', and respect every constraint stated above' : '';
  return [
    `You are improving a text artifact, \`${component}\`, that an evaluator scores (higher is better).`,
    '',
    ...framingSections(context),
    '## The current artifact',
    '```',
    currentText,
    '```',
    '',
    '## How it was evaluated',
    'What the evaluator reported for this artifact: its scores and the diagnostics it gave.',
    '',
    renderedRecords,
    '',
    '## What to do',
    `Find what the diagnostics say goes wrong, and why. Write an improved artifact that fixes it${goal}`,
    `and keeps what already works${rules}. The answer replaces the current artifact as it is, so give`,
    'it complete. Reply with the complete new artifact inside a single ``` fenced block, nothing else.',
  ].join('\n');
}

/** The built-in prompt's wording around records already rendered (the reference bridge renders its own). */
export function reflectionPromptAround(component: string, currentText: string, renderedRecords: string): string {
  return [
    `You are improving one part of an LLM system: the component \`${component}\`.`,
    'Its current text is:',
    '```',
    currentText,
    '```',
    '',
    'Here is how the system did on a few examples with this text: the inputs, what it produced,',
    'and feedback on each answer.',
    '',
    renderedRecords,
    '',
    `Study the feedback. Work out what the current text of \`${component}\` fails to tell the`,
    'model, including task-specific facts and conventions the feedback reveals, and write an',
    'improved text that keeps what already works. Reply with the complete new text inside a',
    'single ``` fenced block.',
  ].join('\n');
}
