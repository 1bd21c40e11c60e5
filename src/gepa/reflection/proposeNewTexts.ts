// The user's proposeNewTexts as a strategy ('propose-new-texts', chosen when it is given): one
// call for every component to rewrite, which the evaluator runs in a worker slot; its answer must
// be texts by component, only for components to rewrite. A call that throws, or an answer of
// another shape, leaves every component without text, with the reason.
import type { NewTexts, ReflectionStrategy } from './reflectionStrategy.js';

/** Every component without text, for one reason. */
const noneBecause = (components: readonly string[], note: string): NewTexts => ({ texts: {}, notes: Object.fromEntries(components.map((c) => [c, note])) });

export const proposeNewTexts: ReflectionStrategy = {
  name: 'propose-new-texts',
  ask: ({ parent, dataset, components }) => [{ kind: 'propose', candidate: parent, dataset, components }],
  read: ([reply], { components }) => {
    if (!reply || !reply.ok) return noneBecause(components, `proposeNewTexts failed: ${reply ? reply.error : 'no reply'}`);
    const answer = 'texts' in reply ? reply.texts : undefined;
    if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) return noneBecause(components, `proposeNewTexts returned ${JSON.stringify(answer)}, not texts by component`);
    const entries = Object.entries(answer as Record<string, unknown>);
    const stray = entries.find(([name, text]) => !components.includes(name) || typeof text !== 'string');
    if (stray) return noneBecause(components, `proposeNewTexts returned ${JSON.stringify(stray[0])}: ${components.includes(stray[0]) ? 'its text is not a string' : `not a component to update (${components.join(', ')})`}`);
    const texts: Record<string, string> = {};
    const notes: Record<string, string> = {};
    for (const name of components) {
      const text = (answer as Record<string, string | undefined>)[name];
      if (text === undefined || text.trim() === '') notes[name] = 'no text proposed';
      else texts[name] = text;
    }
    return { texts, notes };
  },
};
