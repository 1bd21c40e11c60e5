// The prompt that asks the reflection LM for a better component text: the current text in a
// fenced block, then the records rendered as markdown (# Example N, ## key, ### nested key),
// then the request to answer inside a fenced block.

function renderValue(value: unknown, depth: number): string {
  if (value === null || value === undefined) return '(none)';
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
): string {
  return reflectionPromptAround(component, currentText, renderRecords(records));
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
