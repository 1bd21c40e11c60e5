// The built-in reflection strategy ('built-in', the default): gepa's reflective mutation, one
// prompt per component (reflectionPrompt.ts: the current text, the records as markdown, the
// fenced answer; with optimizeAnything's objective and background, the artifact's framing), each
// reply's fenced text the component's new text.
import { buildReflectionPrompt } from '../proposer/reflectionPrompt.js';
import { promptPerComponent, readPerComponent } from './promptPerComponent.js';
import type { ReflectionStrategy } from './reflectionStrategy.js';

export const builtInPrompt: ReflectionStrategy = {
  name: 'built-in',
  ask: (input) => promptPerComponent(input, (component, text, records) => buildReflectionPrompt(component, text, records, input.options.context)),
  read: readPerComponent,
};
