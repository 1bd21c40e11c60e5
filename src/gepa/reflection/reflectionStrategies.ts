// The reflection strategies a run can select by name (`reflectionStrategy`), one line each: a new
// way of reflecting is a file beside this one and a line here. A run may also be given a strategy
// object of its own (its `name` is then its own). Which one a config selects, and why a config
// cannot have the one it names, is said once here for validation and assembly alike.
import { builtInPrompt } from './builtInPrompt.js';
import { combinedFailures } from './combinedFailures.js';
import { promptTemplate } from './promptTemplate.js';
import { proposeNewTexts } from './proposeNewTexts.js';
import type { ReflectionStrategy } from './reflectionStrategy.js';
import { notOneOf } from '../../errors/allowedValues.js';

/** The strategies `reflectionStrategy` selects by name. */
export const reflectionStrategies = {
  /** One prompt per component, the built-in one (the default). */
  'built-in': builtInPrompt,
  /** One prompt per component, written by reflectionPromptTemplate. */
  template: promptTemplate,
  /** One call of proposeNewTexts for all the components. */
  'propose-new-texts': proposeNewTexts,
  /** One prompt per component over the parent's records and other recent proposals' failures, capped (issue 47). */
  combined: combinedFailures,
} as const satisfies Readonly<Record<string, ReflectionStrategy>>;

/** The names `reflectionStrategy` accepts. */
export type ReflectionStrategyName = keyof typeof reflectionStrategies;

export const REFLECTION_STRATEGY_NAMES = Object.keys(reflectionStrategies) as ReflectionStrategyName[];

/** What decides the strategy: the field itself, and the two hooks that select theirs when it is absent. */
export interface ReflectionChoice {
  reflectionStrategy?: unknown;
  reflectionPromptTemplate?: unknown;
  proposeNewTexts?: unknown;
}

/** The config says how to reflect (a strategy, a prompt template or its own proposeNewTexts), rather than leaving it to the run: schedule 'auto' keeps to it. */
export function choosesReflection(choice: ReflectionChoice): boolean {
  return choice.reflectionStrategy !== undefined || choice.reflectionPromptTemplate !== undefined || choice.proposeNewTexts !== undefined;
}

const isStrategyObject = (value: unknown): value is ReflectionStrategy => {
  const v = value as Partial<ReflectionStrategy> | null;
  return typeof v === 'object' && v !== null && typeof v.name === 'string' && v.name !== '' && typeof v.ask === 'function' && typeof v.read === 'function';
};

/**
 * The strategy a config selects, or why it cannot have it (a sentence naming the field). Without
 * `reflectionStrategy`, proposeNewTexts selects 'propose-new-texts', a template 'template', else
 * 'built-in' (as before the field existed).
 */
export function chosenReflectionStrategy(choice: ReflectionChoice): ReflectionStrategy | { problem: string } {
  const { reflectionStrategy: field, reflectionPromptTemplate: template, proposeNewTexts: propose } = choice;
  // A strategy object of the user's may read both (the template in its options, proposeNewTexts through 'propose' requests).
  if (template !== undefined && propose !== undefined && !isStrategyObject(field)) return { problem: 'reflectionPromptTemplate: has no effect with proposeNewTexts, which replaces the reflection prompt' };
  if (field === undefined) return propose !== undefined ? reflectionStrategies['propose-new-texts'] : template !== undefined ? reflectionStrategies.template : reflectionStrategies['built-in'];
  if (isStrategyObject(field)) return field;
  if (typeof field !== 'string' || !Object.hasOwn(reflectionStrategies, field)) {
    return { problem: `reflectionStrategy: ${notOneOf([...REFLECTION_STRATEGY_NAMES, { shape: 'an object { name, ask, read }' }], field)}` };
  }
  const strategy = reflectionStrategies[field as ReflectionStrategyName];
  if (field === 'template' && template === undefined) return { problem: "reflectionStrategy: 'template' needs reflectionPromptTemplate" };
  if (field === 'propose-new-texts' && propose === undefined) return { problem: "reflectionStrategy: 'propose-new-texts' needs proposeNewTexts" };
  if (field !== 'template' && template !== undefined) return { problem: `reflectionPromptTemplate: has no effect with reflectionStrategy '${field}' (use 'template', or leave reflectionStrategy out)` };
  if (field !== 'propose-new-texts' && propose !== undefined) return { problem: `proposeNewTexts: has no effect with reflectionStrategy '${field}' (use 'propose-new-texts', or leave reflectionStrategy out)` };
  return strategy;
}
