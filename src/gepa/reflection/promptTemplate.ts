// The user's reflectionPromptTemplate as a strategy ('template', chosen when a template is given):
// one prompt per component, written by the template, a string with gepa's placeholders or a
// function; each reply's fenced text the component's new text. A template function that throws
// or returns no prompt fails the proposal with the reason, never the run.
import { errorMessage } from '../../errors/errorMessage.js';
import { renderRecords } from '../proposer/reflectionPrompt.js';
import type { ReflectionPromptTemplate } from '../strategies/hookSignatures.js';
import { promptPerComponent, readPerComponent } from './promptPerComponent.js';
import type { ReflectionStrategy } from './reflectionStrategy.js';

/** The placeholders a string template must hold (gepa's names). */
export const CURRENT_TEXT_PLACEHOLDER = '<curr_instructions>';
export const RECORDS_PLACEHOLDER = '<inputs_outputs_feedback>';
/** The names gepa 0.1.4 uses for the same two, accepted too, so its templates work unchanged. */
const CURRENT_TEXT_ALIAS = '<curr_param>';
const RECORDS_ALIAS = '<side_info>';
const PLACEHOLDERS = new RegExp([CURRENT_TEXT_PLACEHOLDER, CURRENT_TEXT_ALIAS, RECORDS_PLACEHOLDER, RECORDS_ALIAS].join('|'), 'g');

/** Why a string template cannot be used, or null. */
export function templateProblem(template: string): string | null {
  const missing = [
    [CURRENT_TEXT_PLACEHOLDER, CURRENT_TEXT_ALIAS],
    [RECORDS_PLACEHOLDER, RECORDS_ALIAS],
  ].filter((names) => !names.some((p) => template.includes(p)));
  if (missing.length === 0) return null;
  const [ours, theirs] = [missing.map(([p]) => p), missing.map(([, p]) => p)];
  return `must contain the placeholder${missing.length > 1 ? 's' : ''} ${ours.join(' and ')} (or gepa 0.1.4's ${theirs.join(' and ')})`;
}

function fillTemplate(template: string, currentText: string, records: ReadonlyArray<Record<string, unknown>>): string {
  // One pass, so that a placeholder inside the current text or the records is left as it is.
  return template.replace(PLACEHOLDERS, (p) => (p === CURRENT_TEXT_PLACEHOLDER || p === CURRENT_TEXT_ALIAS ? currentText : renderRecords(records)));
}

/** One component's prompt from the template. Throws what a template function throws, or when it returns no prompt. */
function templatePrompt(template: ReflectionPromptTemplate, component: string, currentText: string, records: ReadonlyArray<Record<string, unknown>>): string {
  if (typeof template === 'string') return fillTemplate(template, currentText, records);
  const prompt: unknown = template(component, currentText, records);
  if (typeof prompt !== 'string' || prompt.trim() === '') throw new Error(`returned ${prompt instanceof Promise ? 'a Promise' : JSON.stringify(prompt)}, not a prompt string`);
  return prompt;
}

export const promptTemplate: ReflectionStrategy = {
  name: 'template',
  ask: (input) => {
    const { template } = input.options;
    if (template === undefined) return { failed: 'the template strategy needs reflectionPromptTemplate' };
    try {
      return promptPerComponent(input, (component, text, records) => templatePrompt(template, component, text, records));
    } catch (error) {
      return { failed: `reflectionPromptTemplate failed: ${errorMessage(error)}` };
    }
  },
  read: readPerComponent,
};
