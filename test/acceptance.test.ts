// The minibatch gate: strict improvement vs improvement-or-equal, the margins it reports, and
// what counts as a perfect minibatch.
import { describe, expect, it } from 'vitest';
import { isPerfect, judgeChild } from '../src/gepa/strategies/acceptance.js';
import { mean, sum } from '../src/gepa/core/scores.js';

describe('judgeChild', () => {
  it('strict-improvement rejects an equal sum; improvement-or-equal accepts it', () => {
    expect(judgeChild('strict-improvement', [0.5, 1, 0], [1, 0.5, 0])).toEqual({ accepted: false, parentSum: 1.5, childSum: 1.5, margin: 0 });
    expect(judgeChild('improvement-or-equal', [0.5, 1, 0], [1, 0.5, 0])).toEqual({ accepted: true, parentSum: 1.5, childSum: 1.5, margin: 0 });
  });

  it('both accept a higher sum and report the margin child - parent', () => {
    for (const rule of ['strict-improvement', 'improvement-or-equal'] as const) {
      expect(judgeChild(rule, [0.5, 0.25, 0], [1, 0.25, 0])).toEqual({ accepted: true, parentSum: 0.75, childSum: 1.25, margin: 0.5 });
    }
  });

  it('both reject a lower sum, with a negative margin', () => {
    for (const rule of ['strict-improvement', 'improvement-or-equal'] as const) {
      expect(judgeChild(rule, [1, 1], [1, 0.75])).toEqual({ accepted: false, parentSum: 2, childSum: 1.75, margin: -0.25 });
    }
  });

  it('compares sums, not per-example scores: a loss on one example can be outweighed', () => {
    expect(judgeChild('strict-improvement', [1, 0, 0], [0, 1, 0.5]).accepted).toBe(true);
  });
});

describe('isPerfect', () => {
  it('is true only when every score reaches the perfect score', () => {
    expect(isPerfect([1, 1, 1], 1)).toBe(true);
    expect(isPerfect([1, 1.5], 1)).toBe(true);
    expect(isPerfect([1, 0.99], 1)).toBe(false);
    expect(isPerfect([0.8, 0.9], 0.8)).toBe(true);
  });

  it('is false for an empty minibatch', () => {
    expect(isPerfect([], 1)).toBe(false);
  });
});

describe('sum and mean', () => {
  it('add up and average, 0 for nothing', () => {
    expect(sum([0.5, 0.25, 1])).toBe(1.75);
    expect(mean([0.5, 0.25, 0])).toBe(0.25);
    expect(sum([])).toBe(0);
    expect(mean([])).toBe(0);
  });
});
