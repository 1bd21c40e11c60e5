// The built-in reflection strategy ('built-in', the default): gepa's reflective mutation, one
// prompt per component (reflectionPrompt.ts: the current text, the records as markdown, the
// fenced answer; with optimizeAnything's objective and background, the artifact's framing), each
// reply's fenced text the component's new text. With maxCandidateLength the prompt states the
// limit up front, so that the rule's retry (lengthLimit.ts) is the exception.
import { buildReflectionPrompt } from '../proposer/reflectionPrompt.js';
import { promptPerComponent, readPerComponent } from './promptPerComponent.js';
import type { ReflectionStrategy } from './reflectionStrategy.js';

/** The line a prompt ends with under maxCandidateLength. */
export const lengthLine = (limit: number): string => `The new text must be at most ${limit} characters long.`;

export const builtInPrompt: ReflectionStrategy = {
  name: 'built-in',
  ask: (input) => {
    const { context, maxCandidateLength } = input.options;
    return promptPerComponent(input, (component, text, records) => {
      const prompt = buildReflectionPrompt(component, text, records, context);
      return maxCandidateLength === undefined ? prompt : `${prompt}\n${lengthLine(maxCandidateLength)}`;
    });
  },
  read: readPerComponent,
};
