// A small optimizeAnything task with a simulated reflection model that reads the prompt: the
// artifact must mention words; the evaluator says which word it misses next (`Next` in its side
// information); the reflection model appends the word it reads in the prompt to the artifact it
// reads there. Single-task: all WORDS at once; a dataset: one word per example.
import type { LanguageModel } from '../../src/index.js';

export const WORDS = ['alpha', 'beta', 'gamma', 'delta'] as const;

/** The artifact between the framed prompt's "## The current artifact" fence. */
export function currentArtifact(prompt: string): string {
  const match = /## The current artifact\n```\n([\s\S]*?)\n```/.exec(prompt);
  if (!match) throw new Error('no current artifact in the prompt');
  return match[1] as string;
}

/** Appends the first `Next` word the prompt shows; records every prompt. */
export function appendingReflection(prompts: string[] = []): LanguageModel & { prompts: string[] } {
  const lm = async (prompt: string) => {
    prompts.push(prompt);
    const next = /## Next\n(\w+)/.exec(prompt)?.[1];
    const text = currentArtifact(prompt);
    return '```\n' + (next ? `${text} ${next}`.trim() : text) + '\n```';
  };
  return Object.assign(lm, { prompts });
}

/** Single-task: the share of WORDS the artifact mentions; side information names the next missing one. */
export function wordsScore(artifact: string): { score: number; sideInfo: Record<string, unknown> } {
  const missing = WORDS.filter((w) => !artifact.split(/\s+/).includes(w));
  return { score: (WORDS.length - missing.length) / WORDS.length, sideInfo: missing.length > 0 ? { Next: missing[0] } : { Verdict: 'all words present' } };
}

/** Per example: 1 when the artifact mentions the example's word, else 0 with the word as `Next`. */
export function wordScore(artifact: string, word: string): { score: number; sideInfo: Record<string, unknown> } {
  return artifact.split(/\s+/).includes(word) ? { score: 1, sideInfo: {} } : { score: 0, sideInfo: { Next: word } };
}

/** wordsScore as a single-task evaluator that counts its calls (`.calls`). */
export function countedWordsEvaluator(): ((artifact: string) => ReturnType<typeof wordsScore>) & { calls: number } {
  const evaluator = Object.assign(
    (artifact: string) => {
      evaluator.calls++;
      return wordsScore(artifact);
    },
    { calls: 0 },
  );
  return evaluator;
}
