// Sums and means of score lists: the minibatch gate compares sums, the pool ranks by means. And
// whether an evaluation scored anything at all: when every call failed there is nothing to
// reflect on (a proposal), and the run cannot start (the seed).
import type { Evaluation } from './adapter.js';

export const sum = (xs: ReadonlyArray<number>): number => xs.reduce((a, b) => a + b, 0);
export const mean = (xs: ReadonlyArray<number>): number => (xs.length === 0 ? 0 : sum(xs) / xs.length);

/** An evaluation's scores, in its order. */
export const scoresOf = (evaluations: readonly Evaluation[]): number[] => evaluations.map((e) => e.score);

/** True when there were calls and every one failed. */
export const everyCallFailed = (evaluations: readonly Evaluation[]): boolean => evaluations.length > 0 && evaluations.every((e) => e.failure !== undefined);

/** Index of the highest mean score; ties go to the earlier candidate. */
export function argmaxMean(meanScores: ReadonlyArray<number>): number {
  let best = 0;
  meanScores.forEach((s, i) => {
    if (s > (meanScores[best] ?? -Infinity)) best = i;
  });
  return best;
}
