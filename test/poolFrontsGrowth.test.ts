// A batched step adds several candidates before the next fold reads the pool's fronts: they are
// extended candidate by candidate from the last fronts read (unchanged fronts stay the same
// arrays), not computed again over the whole pool, and equal the fronts computed from scratch.
import { describe, expect, it } from 'vitest';
import { addCandidate, emptyPool, poolFronts, type CandidatePool } from '../src/gepa/core/candidatePool.js';
import { computeFronts } from '../src/gepa/core/paretoFront.js';

const add = (pool: CandidatePool, text: string, subscores: number[]) => addCandidate(pool, { candidate: { system: text }, parents: [0], subscores, metricCallsAtDiscovery: 0 }).pool;

describe('instance fronts after several additions', () => {
  it('extend the fronts last read, sharing the fronts no addition changed', () => {
    const seeded = add(emptyPool(), 'seed', [0.5, 0.5, 0.5]);
    const before = poolFronts(seeded, 'instance');
    // Two candidates join before the fronts are read again: each changes only the first example's front.
    const grown = add(add(seeded, 'a', [1, 0, 0]), 'b', [1, 0.25, 0]);
    const after = poolFronts(grown, 'instance');
    expect(after).toEqual(computeFronts({ subscores: grown.valSubscores }, 'instance'));
    expect(after).toEqual([[1, 2], [0], [0]]);
    expect(after[1]).toBe(before[1]);
    expect(after[2]).toBe(before[2]);
  });
});
