// Parent selection: the Pareto sampling list (each non-dominated candidate once per front it is
// on), frequency-weighted draws from it, current-best and epsilon-greedy.
import { describe, expect, it } from 'vitest';
import type { Fronts } from '../src/gepa/core/paretoFront.js';
import { argmaxMean } from '../src/gepa/core/scores.js';
import { EPSILON, paretoSamplingList, selectParent } from '../src/gepa/strategies/parentSelection.js';
import { Rng } from '../src/gepa/core/rng.js';

const tally = (draw: () => number, n: number, size: number): number[] => {
  const counts = new Array<number>(size).fill(0);
  for (let i = 0; i < n; i++) {
    const c = draw();
    counts[c] = (counts[c] ?? 0) + 1;
  }
  return counts;
};
/** Five standard deviations of a Binomial(n, p) count. */
const fiveSd = (n: number, p: number): number => 5 * Math.sqrt(n * p * (1 - p));

describe('paretoSamplingList', () => {
  it('lists each candidate once per front it is on, ascending', () => {
    // c0 is alone on front 0 and c2 on fronts 3 and 4; c1 is only on fronts 1 and 2, each
    // shared with a survivor (c0, c2): c1 is dominated and drops out of the list.
    const fronts: Fronts = [[0], [0, 1], [1, 2], [2], [2]];
    expect(paretoSamplingList(fronts, [0.2, 0.5, 0.6])).toEqual([0, 0, 2, 2, 2]);
  });

  it('keeps a candidate that is alone on some front, counted on every front it is on', () => {
    const fronts: Fronts = [[0], [0, 1], [1], [1, 2], [2], [2]];
    // c0: 2 fronts, c1: 3 fronts, c2: 3 fronts; each is alone somewhere.
    expect(paretoSamplingList(fronts, [0.9, 0.1, 0.5])).toEqual([0, 0, 1, 1, 1, 2, 2, 2]);
  });

  it('counts fronts after dominated removal', () => {
    // c0 is always beside the better-mean c1: removed; fronts become [1], [1,2], [2].
    expect(paretoSamplingList([[0, 1], [0, 1, 2], [2]], [0.4, 0.6, 0.5])).toEqual([1, 1, 2, 2]);
  });

  it('is empty without fronts', () => {
    expect(paretoSamplingList([], [0.5])).toEqual([]);
  });
});

describe('argmaxMean', () => {
  it('returns the highest mean, ties to the earlier index', () => {
    expect(argmaxMean([0.2, 0.8, 0.5])).toBe(1);
    expect(argmaxMean([0.5, 0.7, 0.7])).toBe(1);
    expect(argmaxMean([0.3, 0.3])).toBe(0);
  });
});

describe('selectParent', () => {
  it("'pareto' draws with the list's frequencies (20k draws, fixed seed)", () => {
    const fronts: Fronts = [[0], [0, 1], [1], [1, 2], [2], [2], [2]];
    const means = [0.9, 0.1, 0.5];
    const list = paretoSamplingList(fronts, means);
    expect(list).toEqual([0, 0, 1, 1, 1, 2, 2, 2, 2]); // weights 2/9, 3/9, 4/9
    const rng = new Rng(123);
    const n = 20_000;
    const counts = tally(() => selectParent('pareto', { fronts, meanScores: means }, rng), n, 3);
    [2 / 9, 3 / 9, 4 / 9].forEach((p, c) => expect(Math.abs((counts[c] as number) - n * p)).toBeLessThan(fiveSd(n, p)));
  });

  it("'pareto' never picks a dominated candidate", () => {
    const rng = new Rng(5);
    const view = { fronts: [[0, 1], [0, 1, 2], [2]], meanScores: [0.4, 0.6, 0.5] };
    const counts = tally(() => selectParent('pareto', view, rng), 2_000, 3);
    expect(counts[0]).toBe(0);
    expect((counts[1] as number) + (counts[2] as number)).toBe(2_000);
  });

  it("'pareto' falls back to the best mean when there are no fronts", () => {
    expect(selectParent('pareto', { fronts: [], meanScores: [0.1, 0.4, 0.2] }, new Rng(1))).toBe(1);
  });

  it("'current-best' takes the highest mean, ties to the earlier, without drawing", () => {
    const rng = new Rng(9);
    const before = rng.getState();
    expect(selectParent('current-best', { fronts: [[2]], meanScores: [0.3, 0.8, 0.8] }, rng)).toBe(1);
    expect(rng.getState()).toEqual(before);
  });

  it(`'epsilon-greedy' explores uniformly with probability ${EPSILON}, else takes the best`, () => {
    expect(EPSILON).toBe(0.1);
    const view = { fronts: [], meanScores: [0.1, 0.9, 0.3, 0.2] };
    const rng = new Rng(2026);
    const n = 20_000;
    const counts = tally(() => selectParent('epsilon-greedy', view, rng), n, 4);
    // Exploration (10%) is uniform over all 4, so each non-best index has p = 0.1 / 4 and the
    // best has 0.9 + 0.025; the non-best total is 0.075.
    for (const c of [0, 2, 3]) expect(Math.abs((counts[c] as number) - n * 0.025)).toBeLessThan(fiveSd(n, 0.025));
    const nonBest = n - (counts[1] as number);
    expect(Math.abs(nonBest - n * 0.075)).toBeLessThan(fiveSd(n, 0.075));
  });

  it('is reproducible for a seed', () => {
    const view = { fronts: [[0], [1], [1, 2], [2]], meanScores: [0.5, 0.5, 0.5] };
    const run = (seed: number) => {
      const rng = new Rng(seed);
      return Array.from({ length: 30 }, () => selectParent('pareto', view, rng));
    };
    expect(run(3)).toEqual(run(3));
  });
});
