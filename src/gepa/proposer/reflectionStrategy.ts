// How a proposal gets its new texts: one reflection prompt per chosen component (the built-in
// prompt or the user's reflectionPromptTemplate), or one call of the user's proposeNewTexts for
// all of them. A template that throws, or a proposer that throws or answers something other than
// texts of the components to update, makes a failed proposal with the reason, never a crash.
import { errorMessage } from '../../errors/errorMessage.js';
import type { Candidate, ReflectiveDataset } from '../core/adapter.js';
import type { ReflectionPromptTemplate } from '../strategies/hookSignatures.js';
import type { ComponentReply } from './childCandidate.js';
import { buildReflectionPrompt, renderRecords, type ReflectionContext } from './reflectionPrompt.js';
import { promptContent } from './promptImages.js';
import type { PromptPart } from '../core/languageModel.js';

/** The placeholders a string template must hold (gepa's names). */
export const CURRENT_TEXT_PLACEHOLDER = '<curr_instructions>';
export const RECORDS_PLACEHOLDER = '<inputs_outputs_feedback>';
/** The names gepa 0.1.4 uses for the same two, accepted too, so its templates work unchanged. */
const CURRENT_TEXT_ALIAS = '<curr_param>';
const RECORDS_ALIAS = '<side_info>';
const PLACEHOLDERS = new RegExp([CURRENT_TEXT_PLACEHOLDER, CURRENT_TEXT_ALIAS, RECORDS_PLACEHOLDER, RECORDS_ALIAS].join('|'), 'g');

export interface ReflectionStrategy {
  template?: ReflectionPromptTemplate;
  /** The user's proposeNewTexts makes the texts (the evaluator runs it in a worker slot). */
  customProposer: boolean;
  /** optimizeAnything's objective and background: the built-in prompt states them (a template has its own words). */
  context?: ReflectionContext;
}

export const defaultReflection: ReflectionStrategy = { customProposer: false };

/** `contents[i]`: prompt i as parts when its records hold images (for a model that sees them). */
export type ReflectionWork = { kind: 'prompts'; prompts: string[]; contents?: Array<PromptPart[] | undefined> } | { kind: 'custom' } | { kind: 'failed'; reason: string };

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

/** One reflection prompt for one component. Throws what a template function throws. */
export function reflectionPrompt(
  template: ReflectionPromptTemplate | undefined,
  component: string,
  currentText: string,
  records: ReadonlyArray<Record<string, unknown>>,
  context?: ReflectionContext,
): string {
  if (template === undefined) return buildReflectionPrompt(component, currentText, records, context);
  if (typeof template === 'string') return fillTemplate(template, currentText, records);
  const prompt: unknown = template(component, currentText, records);
  if (typeof prompt !== 'string' || prompt.trim() === '') throw new Error(`returned ${prompt instanceof Promise ? 'a Promise' : JSON.stringify(prompt)}, not a prompt string`);
  return prompt;
}

/** What the proposer asks the evaluator for, once it has the reflective dataset. */
export function reflectionWork(strategy: ReflectionStrategy, parent: Candidate, components: readonly string[], dataset: ReflectiveDataset): ReflectionWork {
  if (strategy.customProposer) return { kind: 'custom' };
  try {
    const prompts = components.map((name) => reflectionPrompt(strategy.template, name, parent[name] ?? '', dataset[name] ?? [], strategy.context));
    const contents = prompts.map((prompt, i) => promptContent(prompt, dataset[components[i] as string] ?? []));
    return { kind: 'prompts', prompts, ...(contents.some((c) => c !== undefined) ? { contents } : {}) };
  } catch (error) {
    return { kind: 'failed', reason: `reflectionPromptTemplate failed: ${errorMessage(error)}` };
  }
}

/** proposeNewTexts' answer read into one reply per component (a component it left out gets no new text). */
export function readProposedTexts(components: readonly string[], answer: { ok: true; texts: unknown } | { ok: false; error: string }): ComponentReply[] {
  const none = (note: string) => components.map(() => ({ text: null, note }));
  if (!answer.ok) return none(`proposeNewTexts failed: ${answer.error}`);
  const texts = answer.texts;
  if (typeof texts !== 'object' || texts === null || Array.isArray(texts)) return none(`proposeNewTexts returned ${JSON.stringify(texts)}, not texts by component`);
  const entries = Object.entries(texts as Record<string, unknown>);
  const stray = entries.find(([name, text]) => !components.includes(name) || typeof text !== 'string');
  if (stray) return none(`proposeNewTexts returned ${JSON.stringify(stray[0])}: ${components.includes(stray[0]) ? 'its text is not a string' : `not a component to update (${components.join(', ')})`}`);
  return components.map((name) => {
    const text = (texts as Record<string, string | undefined>)[name];
    return text === undefined || text.trim() === '' ? { text: null, note: 'no text proposed' } : { text, note: 'unchanged text' };
  });
}

/** What a reflection produced, as gepa's `on_proposal_end` reports it: the texts that changed, and the prompt sent per component. */
export function reflectionOutcome(work: ReflectionWork | undefined, parent: Candidate, child: Candidate, components: readonly string[]): { newTexts: Record<string, string>; prompts?: Record<string, string> } {
  const newTexts: Record<string, string> = {};
  for (const name of components) if (child[name] !== undefined && child[name] !== parent[name]) newTexts[name] = child[name];
  if (work?.kind !== 'prompts') return { newTexts };
  return { newTexts, prompts: Object.fromEntries(components.map((name, i) => [name, work.prompts[i] ?? ''])) };
}
