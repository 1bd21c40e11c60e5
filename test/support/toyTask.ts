// A tiny task with hand-checkable behaviour for runtime tests: a candidate scores 1 on an
// example when its text mentions the example's keyword; the toy reflection model appends the
// first keyword it finds in the feedback. Latencies are scheduled on the given clock.
import { sleep } from '../../src/clock.js';
import type { Adapter, Candidate } from '../../src/gepa/core/adapter.js';
import type { Clock } from '../../src/clock.js';
import type { LanguageModel } from '../../src/gepa/core/languageModel.js';

export interface ToyExample {
  id: string;
  keyword: string;
}

export interface CallRecord {
  kind: 'eval' | 'reflect';
  label: string;
  start: number;
  end: number;
}

export interface ToyTaskOptions {
  clock: Clock;
  evalMs?: (candidate: Candidate, example: ToyExample) => number;
  reflectMs?: (prompt: string) => number;
  /** Throw instead of answering for these (candidate, example) pairs. */
  throwsOn?: (candidate: Candidate, example: ToyExample) => boolean;
}

export function toyTask(options: ToyTaskOptions) {
  const calls: CallRecord[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let evaluateCalls = 0;
  const track = async <T>(kind: CallRecord['kind'], label: string, ms: number, signal: AbortSignal, fn: () => T): Promise<T> => {
    const start = options.clock.now();
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      if (ms > 0) await sleep(options.clock, ms, signal);
      return fn();
    } finally {
      inFlight--;
      calls.push({ kind, label, start, end: options.clock.now() });
    }
  };
  const adapter: Adapter<ToyExample> = {
    evaluate: (candidate, example, ctx) => {
      evaluateCalls++;
      return track('eval', `${candidate.instructions}|${example.id}`, options.evalMs?.(candidate, example) ?? 0, ctx.signal, () => {
        if (options.throwsOn?.(candidate, example)) throw new Error(`cannot run ${example.id}`);
        const hit = (candidate.instructions ?? '').includes(example.keyword);
        return { score: hit ? 1 : 0, output: hit ? example.keyword : 'none', feedback: hit ? 'correct' : `the answer needs the word ${example.keyword}` };
      });
    },
  };
  const reflectionLm: LanguageModel = (prompt, ctx) =>
    track('reflect', prompt.slice(0, 40), options.reflectMs?.(prompt) ?? 0, ctx.signal, () => {
      const current = prompt.split('```')[1]?.trim() ?? '';
      const wanted = [...prompt.matchAll(/needs the word (\w+)/g)].map((m) => m[1]).find((w) => !current.includes(w as string));
      return `Here is a better instruction:\n\`\`\`text\n${current}${wanted ? ` ${wanted}` : ''}\n\`\`\``;
    });
  return {
    adapter,
    reflectionLm,
    calls,
    get maxInFlight() {
      return maxInFlight;
    },
    get evaluateCalls() {
      return evaluateCalls;
    },
  };
}

export const toyExamples = (prefix: string, keywords: string[]): ToyExample[] => keywords.map((keyword, i) => ({ id: `${prefix}${i}`, keyword }));

/** A number in [0, 1) from a string: order-independent pseudo-randomness for latencies and faults. */
export function hashUnit(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  h = Math.imul(h ^ (h >>> 12), 0x297a2d39);
  return ((h ^ (h >>> 15)) >>> 0) / 4294967296;
}

export const KEYWORDS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'lambda', 'mu'];
