// A prototype of reflection that reads many failures at once (issue 47 item 2), as a model
// wrapper: each reflection prompt also gets the example records of the last `recent` reflection
// prompts (other parents' minibatch results, most recent first), up to `cap` records in all, the
// ComBEE idea of combining several minibatches in one reflection without paying for more metric
// calls. A bench prototype only (the strategy proper belongs on the ReflectionStrategy
// interface): it keeps its history in the wrapper, so it is deterministic where the order of
// reflection calls is (simulated time).
import type { LanguageModel, LanguageModelContext } from '../src/gepa/core/languageModel.js';

const RECORDS_START = '\n# Example 1\n';
const RECORDS_END = '\n\nStudy the feedback.';

export interface CombinedReflectionOptions {
  /** Earlier prompts whose records are added. */
  recent: number;
  /** Most records in one prompt. */
  cap: number;
}

function splitPrompt(prompt: string): { head: string; blocks: string[]; tail: string } | undefined {
  const start = prompt.indexOf(RECORDS_START);
  const end = prompt.lastIndexOf(RECORDS_END);
  if (start === -1 || end === -1 || end < start) return undefined;
  const body = prompt.slice(start + 1, end);
  const blocks = body.split(/\n\n(?=# Example \d+\n)/).map((b) => b.replace(/^# Example \d+\n/, ''));
  return { head: prompt.slice(0, start + 1), blocks, tail: prompt.slice(end) };
}

export function combinedPromptModel(lm: LanguageModel, options: CombinedReflectionOptions): LanguageModel {
  const history: string[][] = [];
  return async (prompt: string, ctx: LanguageModelContext) => {
    const parts = splitPrompt(prompt);
    if (!parts) return lm(prompt, ctx);
    const own = new Set(parts.blocks);
    const extra: string[] = [];
    for (const blocks of history.slice(-options.recent).reverse()) {
      for (const b of blocks) if (!own.has(b) && !extra.includes(b)) extra.push(b);
    }
    history.push(parts.blocks);
    const records = [...parts.blocks, ...extra].slice(0, Math.max(parts.blocks.length, options.cap));
    const rendered = records.map((b, i) => `# Example ${i + 1}\n${b}`).join('\n\n');
    return lm(`${parts.head}${rendered}${parts.tail}`, ctx);
  };
}
