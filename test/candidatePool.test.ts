// The candidate pool: join order, means, best index, lineage, inherited component pointers,
// hashes, and the guard on valset width.
import { describe, expect, it } from 'vitest';
import { candidateHash } from '../src/gepa/core/candidateHash.js';
import { computeFronts } from '../src/gepa/core/paretoFront.js';
import { Rng } from '../src/gepa/core/rng.js';
import { addCandidate, ancestorsOf, bestIndex, emptyPool, indexOfHash, isAncestor, memberOf, poolFronts, withComponentPointers, type CandidatePool, type NewCandidate } from '../src/gepa/core/candidatePool.js';

const entry = (text: string, parents: number[], subscores: number[], metricCallsAtDiscovery = 0): NewCandidate => ({
  candidate: { system: text },
  parents,
  subscores,
  metricCallsAtDiscovery,
});

function build(entries: NewCandidate[]): CandidatePool {
  let pool = emptyPool();
  for (const e of entries) pool = addCandidate(pool, e).pool;
  return pool;
}

describe('candidate pool', () => {
  it('gives indices in join order and records lineage, means and discovery calls', () => {
    let pool = emptyPool();
    const indices: number[] = [];
    for (const e of [entry('seed', [], [0, 0.5, 1], 3), entry('a', [0], [1, 0.5, 0], 10), entry('b', [0, 1], [1, 1, 0.25], 17)]) {
      const added = addCandidate(pool, e);
      indices.push(added.index);
      pool = added.pool;
    }
    expect(indices).toEqual([0, 1, 2]);
    expect(pool.candidates).toEqual([{ system: 'seed' }, { system: 'a' }, { system: 'b' }]);
    expect(pool.parents).toEqual([[], [0], [0, 1]]);
    expect(pool.valSubscores).toEqual([
      [0, 0.5, 1],
      [1, 0.5, 0],
      [1, 1, 0.25],
    ]);
    expect(pool.valScores).toEqual([0.5, 0.5, 0.75]);
    expect(pool.discoveryMetricCalls).toEqual([3, 10, 17]);
    expect(pool.hashes).toEqual([candidateHash({ system: 'seed' }), candidateHash({ system: 'a' }), candidateHash({ system: 'b' })]);
    expect(pool.valObjectives).toEqual([
      [null, null, null],
      [null, null, null],
      [null, null, null],
    ]);
  });

  it('returns a new pool and leaves the old one unchanged', () => {
    const before = build([entry('seed', [], [1])]);
    const snapshot = structuredClone(before);
    const { pool: after } = addCandidate(before, entry('a', [0], [0]));
    expect(before).toEqual(snapshot);
    expect(after.candidates).toHaveLength(2);
  });

  it('keeps objective scores when given', () => {
    const pool = addCandidate(emptyPool(), { ...entry('seed', [], [1, 0]), objectives: [{ acc: 1 }, null] }).pool;
    expect(pool.valObjectives).toEqual([[{ acc: 1 }, null]]);
  });

  it('bestIndex is the highest mean, ties to the earlier candidate', () => {
    const pool = build([entry('seed', [], [0.5, 0.5]), entry('a', [0], [1, 0.5]), entry('b', [0], [0.5, 1])]);
    expect(pool.valScores).toEqual([0.5, 0.75, 0.75]);
    expect(bestIndex(pool)).toBe(1);
    expect(bestIndex(addCandidate(pool, entry('c', [2], [1, 1])).pool)).toBe(3);
  });

  it('a child starts at the max component pointer of its parents; a parentless one at 0', () => {
    let pool = build([entry('seed', [], [0]), entry('a', [0], [0]), entry('b', [0], [0])]);
    expect(pool.componentPointers).toEqual([0, 0, 0]);
    pool = withComponentPointers(pool, [1, 2, 0]);
    pool = addCandidate(pool, entry('merge of a and b', [1, 2], [0])).pool;
    pool = addCandidate(pool, entry('child of seed', [0], [0])).pool;
    pool = addCandidate(pool, entry('orphan', [], [0])).pool;
    expect(pool.componentPointers).toEqual([1, 2, 0, 2, 1, 0]);
  });

  it('throws on a valset score list of the wrong length, naming both lengths', () => {
    const pool = build([entry('seed', [], [1, 0, 1])]);
    expect(() => addCandidate(pool, entry('short', [0], [1, 0]))).toThrow(/2 valset scores.*expects 3/);
    expect(() => addCandidate(pool, entry('long', [0], [1, 0, 1, 1]))).toThrow(/4 valset scores.*expects 3/);
  });

  it('indexOfHash finds a candidate by content, whatever its key order; -1 when absent', () => {
    const pool = build([
      { candidate: { a: '1', b: '2' }, parents: [], subscores: [0], metricCallsAtDiscovery: 0 },
      { candidate: { a: '1', b: '3' }, parents: [0], subscores: [0], metricCallsAtDiscovery: 0 },
    ]);
    expect(indexOfHash(pool, candidateHash({ b: '3', a: '1' }))).toBe(1);
    expect(indexOfHash(pool, candidateHash({ a: '1', b: '2' }))).toBe(0);
    expect(indexOfHash(pool, candidateHash({ a: '1', b: '4' }))).toBe(-1);
  });

  it('indexOfHash answers as hashes.indexOf on every pool of a run that branches, twins included', () => {
    // Pools grown one by one, sometimes from an older pool (a branch), sometimes with a twin's
    // text: the index shared along a line of pools must not leak one branch's hashes into another.
    const rng = new Rng(7);
    const pools: CandidatePool[] = [build([entry('t0', [], [0])])];
    for (let n = 0; n < 400; n++) {
      const from = rng.next() < 0.2 ? rng.pick(pools) : (pools[pools.length - 1] as CandidatePool);
      // Ask before adding on some pools only, as a fold does (a batched fold adds several in a row).
      if (rng.next() < 0.5) indexOfHash(from, 'none');
      const next = addCandidate(from, entry(`t${rng.int(60)}`, [0], [rng.next()])).pool;
      pools.push(next);
    }
    for (let k = 0; k < 60; k++) {
      const hash = candidateHash({ system: `t${k}` });
      for (const pool of pools) expect(indexOfHash(pool, hash)).toBe(pool.hashes.indexOf(hash));
    }
  });

  it('poolFronts computes the instance fronts of the pool', () => {
    const pool = build([entry('seed', [], [0.5, 0.5]), entry('a', [0], [1, 0.5]), entry('b', [0], [0.5, 0])]);
    expect(poolFronts(pool, 'instance')).toEqual([[1], [0, 1]]);
    // No objective scores: every type falls back to the instance fronts.
    expect(poolFronts(pool, 'objective')).toEqual([[1], [0, 1]]);
  });

  it('poolFronts after each addition (extended by one row) equals the fronts computed from scratch', () => {
    const rng = new Rng(7);
    for (let trial = 0; trial < 30; trial++) {
      const examples = 1 + rng.int(8);
      let pool = emptyPool();
      const snapshots: Array<{ pool: CandidatePool; fronts: number[][] }> = [];
      for (let i = 0; i < 25; i++) {
        // Few distinct values, so that ties (the case that copies a front) are common.
        const subscores = Array.from({ length: examples }, () => (trial % 5 === 0 && rng.next() < 0.1 ? Number.NaN : rng.int(3) / 2));
        pool = addCandidate(pool, entry(`c${trial}-${i}`, i === 0 ? [] : [rng.int(i)], subscores)).pool;
        const fronts = poolFronts(pool, 'instance');
        expect(fronts).toEqual(computeFronts({ subscores: pool.valSubscores }, 'instance'));
        snapshots.push({ pool, fronts: fronts.map((f) => [...f]) });
      }
      // Extending never changed an earlier pool's fronts (unchanged fronts are shared, not edited).
      for (const s of snapshots) expect(poolFronts(s.pool, 'instance')).toEqual(s.fronts);
    }
  });

  it('memberOf gives a candidate with its hash, and names an index the pool does not have', () => {
    const pool = addCandidate(addCandidate(emptyPool(), entry('seed', [], [1, 0])).pool, entry('a', [0], [1, 1])).pool;
    expect(memberOf(pool, 1)).toEqual({ candidate: { system: 'a' }, hash: candidateHash({ system: 'a' }) });
    expect(() => memberOf(pool, 2)).toThrow('no candidate 2 in a pool of 2');
  });
});

describe('isAncestor', () => {
  it('answers as ancestorsOf does, a merge and a diamond included', () => {
    // 0 -> 1 -> 3, 0 -> 2, {2, 3} -> 4 (a merge), 4 -> 5, 1 -> 6
    const parents = [[], [0], [0], [1], [2, 3], [4], [1]];
    for (let i = 0; i < parents.length; i++) {
      for (let a = 0; a < parents.length; a++) expect(isAncestor(parents, a, i), `${a} of ${i}`).toBe(ancestorsOf(parents, i).has(a));
    }
  });
});
