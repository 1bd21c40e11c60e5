// A two-component task on which merges happen: each example needs its word in `content` and its
// style in `format` (half a point each), and the simulated reflection model adds the first missing
// word it reads for the component it is asked about. Two mutations of one parent per step change
// different components, so siblings improve different things and merges can combine them.
// Options make some merges lose (crowded candidates) and one metric call throw.
import { sleep, type Clock } from '../../src/clock.js';
import type { Adapter } from '../../src/gepa/core/adapter.js';
import type { LanguageModel } from '../../src/gepa/core/languageModel.js';

export interface MergeExample {
  id: string;
  word: string;
  style: string;
}

export const mergeExamples: MergeExample[] = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'].map((word, i) => ({ id: `e${i}`, word, style: i % 2 ? 'bullets' : 'table' }));

export interface MergeTaskOptions {
  /** Halve the score of a candidate whose two components both hold more than `crowded` words (so some merges lose). */
  crowded?: number;
  /** Throw instead of answering on this example id for a candidate whose content holds this word. */
  throwsOn?: { example: string; word: string };
}

const wordCount = (text: string | undefined) => (text ?? '').split(/\s+/).filter(Boolean).length;

export function mergeTask(clock: Clock, options: MergeTaskOptions = {}) {
  let evaluateCalls = 0;
  const adapter: Adapter<MergeExample> = {
    evaluate: async (c, e, ctx) => {
      evaluateCalls++;
      await sleep(clock, 10, ctx.signal);
      const { throwsOn, crowded } = options;
      if (throwsOn && e.id === throwsOn.example && (c.content ?? '').includes(throwsOn.word)) throw new Error(`cannot run ${e.id}`);
      const penalty = crowded !== undefined && wordCount(c.content) > crowded && wordCount(c.format) > crowded ? 0.5 : 1;
      const hasWord = (c.content ?? '').includes(e.word);
      const hasStyle = (c.format ?? '').includes(e.style);
      const missing = [hasWord ? '' : `the content needs the word ${e.word}`, hasStyle ? '' : `the format needs the word ${e.style}`].filter(Boolean);
      return { score: penalty * ((hasWord ? 0.5 : 0) + (hasStyle ? 0.5 : 0)), output: `${hasWord}/${hasStyle}`, feedback: missing.join('; ') || 'correct', ...(ctx.captureTraces ? { trace: { example: e.id } } : {}) };
    },
  };
  const reflectionLm: LanguageModel = async (prompt, ctx) => {
    await sleep(clock, 50, ctx.signal);
    const component = /the component `(\w+)`/.exec(prompt)?.[1] ?? '';
    const current = prompt.split('```')[1]?.trim() ?? '';
    const wanted = [...prompt.matchAll(new RegExp(`the ${component} needs the word (\\w+)`, 'g'))].map((m) => m[1]).find((w) => !current.includes(w as string));
    return `\`\`\`\n${current}${wanted ? ` ${wanted}` : ''}\n\`\`\``;
  };
  return { adapter, reflectionLm, calls: () => evaluateCalls };
}
