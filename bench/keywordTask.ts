// The overhead benchmark's toy task: the cheapest task that still exercises every path of a
// run. Example i is answered right iff the prompt names its keyword; the feedback names the
// missing keyword, and the toy reflection LM adds it (or, one time in three, a keyword of no
// use). Children are accepted and evaluated on the valset at realistic rates, proposals never
// run out, and each metric call or reflection costs a few string operations: what remains is
// the runtime's own cost.
import type { Adapter, Candidate } from '../src/gepa/core/adapter.js';
import type { LanguageModel } from '../src/gepa/core/languageModel.js';

export interface KeywordExample {
  id: number;
  keyword: string;
}

export interface KeywordTask {
  seedCandidate: Candidate;
  trainset: KeywordExample[];
  valset: KeywordExample[];
  adapter: Adapter<KeywordExample>;
  reflectionLm: LanguageModel;
}

/** Keywords shared by several examples (hashed ids), so one fix helps on the valset too. */
const KEYWORDS = 300;

const keywordOf = (i: number) => `kw${(Math.imul(i + 1, 2654435761) >>> 0) % KEYWORDS}`;

export function createKeywordTask(trainSize: number, valSize: number): KeywordTask {
  const make = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ id: from + i, keyword: keywordOf(from + i) }));
  return {
    seedCandidate: { instructions: 'Answer the question.' },
    trainset: make(0, trainSize),
    valset: make(trainSize, valSize),
    adapter: {
      async evaluate(candidate, example) {
        const ok = (candidate.instructions ?? '').includes(` ${example.keyword}.`);
        return { score: ok ? 1 : 0, output: ok ? 'right' : 'wrong', feedback: ok ? 'Correct.' : `Missing ${example.keyword}.` };
      },
    },
    async reflectionLm(prompt) {
      // The current text sits in the prompt's first fenced block; the first "Missing" names the fix.
      const start = prompt.indexOf('```\n') + 4;
      const current = prompt.slice(start, prompt.indexOf('\n```', start));
      const missing = /Missing (kw\d+)\./.exec(prompt)?.[1];
      const useless = prompt.length % 3 === 0 || missing === undefined;
      const keyword = useless ? `kw${KEYWORDS + (prompt.length % 97)}` : missing;
      return `\`\`\`\n${current} ${keyword}.\n\`\`\``;
    },
  };
}
