// The seeded RNG: reproducible streams, exact save/restore, bounded integers, permutations and a
// rough check that int(n) is uniform (the Pareto sampler and the minibatch shuffle rely on it).
import { describe, expect, it } from 'vitest';
import { Rng } from '../src/gepa/core/rng.js';

const draws = (rng: Rng, n: number): number[] => Array.from({ length: n }, () => rng.nextUint32());

describe('Rng', () => {
  it('gives the same stream for the same seed', () => {
    expect(draws(new Rng(42), 50)).toEqual(draws(new Rng(42), 50));
  });

  it('gives unrelated streams for different (even adjacent) seeds', () => {
    const a = draws(new Rng(1), 50);
    const b = draws(new Rng(2), 50);
    // Not a shift of one another either: no position agrees.
    expect(a.filter((x, i) => x === b[i])).toEqual([]);
    expect(new Set([...a, ...b]).size).toBe(100);
  });

  it('defaults to seed 0', () => {
    expect(draws(new Rng(), 10)).toEqual(draws(new Rng(0), 10));
  });

  it('continues identically after getState and a restore from that state', () => {
    const rng = new Rng(7);
    draws(rng, 13);
    const state = rng.getState();
    const restored = new Rng(state);
    expect(draws(restored, 100)).toEqual(draws(rng, 100));
  });

  it('getState is a snapshot, not a live view', () => {
    const rng = new Rng(7);
    const state = rng.getState();
    const first = draws(rng, 5);
    expect(draws(new Rng(state), 5)).toEqual(first);
  });

  it('next() is a float in [0, 1)', () => {
    const rng = new Rng(3);
    for (let i = 0; i < 10_000; i++) {
      const x = rng.next();
      expect(x >= 0 && x < 1).toBe(true);
    }
  });

  it('int(n) stays in [0, n) and reaches both ends', () => {
    const rng = new Rng(5);
    const seen = new Set<number>();
    for (let i = 0; i < 2_000; i++) {
      const x = rng.int(7);
      expect(Number.isInteger(x) && x >= 0 && x < 7).toBe(true);
      seen.add(x);
    }
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(new Rng(5).int(1)).toBe(0);
  });

  it.each([0, -1, 2.5, Number.NaN, Infinity])('int(%s) throws a RangeError', (n) => {
    expect(() => new Rng(1).int(n)).toThrow(RangeError);
  });

  it('pick on an empty list throws; on a list returns a member', () => {
    const rng = new Rng(9);
    expect(() => rng.pick([])).toThrow(RangeError);
    expect(['a', 'b', 'c']).toContain(rng.pick(['a', 'b', 'c']));
  });

  it('shuffle returns a permutation and leaves its input alone', () => {
    const rng = new Rng(11);
    const input = Array.from({ length: 20 }, (_, i) => i);
    const copy = input.slice();
    const out = rng.shuffle(input);
    expect(input).toEqual(copy);
    expect(out).toHaveLength(20);
    expect(out.slice().sort((a, b) => a - b)).toEqual(input);
    expect(out).not.toEqual(input);
    expect(rng.shuffle([])).toEqual([]);
    expect(rng.shuffle(['x'])).toEqual(['x']);
  });

  it('shuffle is reproducible for a seed', () => {
    const ids = Array.from({ length: 10 }, (_, i) => i);
    expect(new Rng(4).shuffle(ids)).toEqual(new Rng(4).shuffle(ids));
    expect(new Rng(4).shuffle(ids)).not.toEqual(new Rng(5).shuffle(ids));
  });

  it('shuffle makes all 6 orders of 3 items equally likely (60k shuffles)', () => {
    // Each order is Binomial(60000, 1/6): mean 10000, sd ~= 91.3; +-460 is 5 sd. A shuffle
    // that never leaves an item in place (Sattolo's) reaches only 2 of the 6 orders.
    const rng = new Rng(77);
    const counts = new Map<string, number>();
    const n = 60_000;
    for (let i = 0; i < n; i++) {
      const key = rng.shuffle([0, 1, 2]).join('');
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual(['012', '021', '102', '120', '201', '210']);
    for (const c of counts.values()) expect(Math.abs(c - n / 6)).toBeLessThan(460);
  });

  it('int(10) is roughly uniform over 100k draws', () => {
    // Each count is Binomial(100000, 0.1): mean 10000, sd sqrt(100000 * 0.1 * 0.9) ~= 94.9.
    // +-500 is > 5 sd per bucket; the chi-square (9 degrees of freedom) has its 0.1% tail at
    // 27.88. A generator with a real bias of even 1% per bucket fails both.
    const rng = new Rng(2024);
    const counts = new Array<number>(10).fill(0);
    const n = 100_000;
    for (let i = 0; i < n; i++) counts[rng.int(10)]! += 1;
    for (const c of counts) expect(Math.abs(c - n / 10)).toBeLessThan(500);
    const chi2 = counts.reduce((s, c) => s + (c - n / 10) ** 2 / (n / 10), 0);
    expect(chi2).toBeLessThan(27.88);
  });
});
