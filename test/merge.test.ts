// Merge on hand-built lineages: which (a, b, ancestor) triples are worth trying, how the child
// takes each component, the balanced valset subsample, acceptance, and the planner.
import { describe, expect, it } from 'vitest';
import { addCandidate, emptyPool, poolFronts, type CandidatePool } from '../src/gepa/core/candidatePool.js';
import { ancestorsOf } from '../src/gepa/core/candidatePool.js';
import { acceptMerge, MERGE_SUBSAMPLE_SIZE, mergeComponents, mergeSubsample, mergeTriples, planMerge, tripleKey } from '../src/gepa/proposer/merge.js';
import { Rng } from '../src/gepa/core/rng.js';
import type { Candidate } from '../src/gepa/core/adapter.js';

function poolOf(rows: Array<{ candidate: Candidate; parents: number[]; subscores: number[] }>): CandidatePool {
  let pool = emptyPool();
  for (const r of rows) pool = addCandidate(pool, { ...r, metricCallsAtDiscovery: 0 }).pool;
  return pool;
}

/**
 * Seed 0 -> 1 rewrites A, 0 -> 2 rewrites B. Valset of 6:
 *   e0, e1: 1 is the only best; e2, e3: 2 is the only best; e4, e5: all three tie at 0.5.
 * Means: c0 1/3, c1 1/2, c2 1/2. c0 is never alone on a front and has the lowest mean, so the
 * non-dominated candidates are {1, 2}.
 */
const forked = (): CandidatePool =>
  poolOf([
    { candidate: { A: 'a0', B: 'b0' }, parents: [], subscores: [0.5, 0.5, 0, 0, 0.5, 0.5] },
    { candidate: { A: 'a1', B: 'b0' }, parents: [0], subscores: [1, 1, 0, 0, 0.5, 0.5] },
    { candidate: { A: 'a0', B: 'b2' }, parents: [0], subscores: [0, 0, 1, 1, 0.5, 0.5] },
  ]);

describe('ancestorsOf', () => {
  it('collects every ancestor through all parents, not the candidate itself', () => {
    const parents = [[], [0], [0], [1, 2], [3]];
    expect([...ancestorsOf(parents, 4)].sort()).toEqual([0, 1, 2, 3]);
    expect([...ancestorsOf(parents, 0)]).toEqual([]);
  });
});

describe('mergeComponents', () => {
  const ancestor = { A: 'a0', B: 'b0', C: 'c0' };

  it('takes each component from the parent that changed it', () => {
    expect(mergeComponents(ancestor, { A: 'a1', B: 'b0', C: 'c0' }, { A: 'a0', B: 'b2', C: 'c0' }, 0.5, 0.5)).toEqual({ A: 'a1', B: 'b2', C: 'c0' });
  });

  it("takes the better-scoring parent's text when both changed a component; a tie goes to the first", () => {
    const a = { A: 'aX', B: 'b0', C: 'c0' };
    const b = { A: 'aY', B: 'b0', C: 'c0' };
    expect(mergeComponents(ancestor, a, b, 0.4, 0.6).A).toBe('aY');
    expect(mergeComponents(ancestor, a, b, 0.6, 0.4).A).toBe('aX');
    expect(mergeComponents(ancestor, a, b, 0.5, 0.5).A).toBe('aX');
  });

  it('keeps a component both parents left alone', () => {
    expect(mergeComponents(ancestor, { ...ancestor, A: 'a1' }, { ...ancestor, B: 'b2' }, 0, 1).C).toBe('c0');
  });
});

describe('mergeTriples', () => {
  it('finds (1, 2) with their common ancestor 0 on the forked lineage', () => {
    const pool = forked();
    const fronts = poolFronts(pool, 'instance');
    expect(fronts).toEqual([[1], [1], [2], [2], [0, 1, 2], [0, 1, 2]]);
    expect(mergeTriples(pool, fronts, new Set())).toEqual([{ a: 1, b: 2, ancestor: 0 }]);
  });

  it('excludes a pair where one is the ancestor of the other', () => {
    // 0 -> 1 rewrites A; 1 -> 2 reverts A and rewrites B. 1 and 2 are both non-dominated and,
    // were the pair allowed, merging over ancestor 0 would give {A: a1, B: b2}, new to both.
    const pool = poolOf([
      { candidate: { A: 'a0', B: 'b0' }, parents: [], subscores: [0, 0] },
      { candidate: { A: 'a1', B: 'b0' }, parents: [0], subscores: [1, 0] },
      { candidate: { A: 'a0', B: 'b2' }, parents: [1], subscores: [0, 1] },
    ]);
    const fronts = poolFronts(pool, 'instance');
    expect(fronts).toEqual([[1], [2]]);
    expect(mergeComponents(pool.candidates[0]!, pool.candidates[1]!, pool.candidates[2]!, 0.5, 0.5)).toEqual({ A: 'a1', B: 'b2' });
    expect(mergeTriples(pool, fronts, new Set())).toEqual([]);
  });

  it('excludes a common ancestor that scores above either parent, keeps one that does not', () => {
    // 0 -> 1 rewrites C; 1 -> 2 rewrites A; 1 -> 3 rewrites B. Common ancestors of 2 and 3: {0, 1}.
    const rows = (c1: number[]) => [
      { candidate: { A: 'a0', B: 'b0', C: 'c0' }, parents: [], subscores: [0, 0, 0] },
      { candidate: { A: 'a0', B: 'b0', C: 'c1' }, parents: [0], subscores: c1 },
      { candidate: { A: 'a2', B: 'b0', C: 'c1' }, parents: [1], subscores: [1, 0, 0] },
      { candidate: { A: 'a0', B: 'b3', C: 'c1' }, parents: [1], subscores: [0, 1, 0] },
    ];
    // c1 mean 1/2 > 1/3 (c2, c3): only ancestor 0 (mean 0) qualifies.
    const above = poolOf(rows([0.5, 0.5, 0.5]));
    expect(mergeTriples(above, poolFronts(above, 'instance'), new Set())).toEqual([{ a: 2, b: 3, ancestor: 0 }]);
    // c1 mean 1/3 = theirs: "no better than either" admits it too (ascending ancestor order).
    const equal = poolOf(rows([0.25, 0.25, 0.5]));
    expect(mergeTriples(equal, poolFronts(equal, 'instance'), new Set())).toEqual([
      { a: 2, b: 3, ancestor: 0 },
      { a: 2, b: 3, ancestor: 1 },
    ]);
  });

  it('excludes the pair when its only common ancestor scores above a parent', () => {
    // c0 mean 0.5 > c1 mean 0.25.
    const pool = poolOf([
      { candidate: { A: 'a0', B: 'b0' }, parents: [], subscores: [0.5, 0.5, 0.5, 0.5] },
      { candidate: { A: 'a1', B: 'b0' }, parents: [0], subscores: [1, 0, 0, 0] },
      { candidate: { A: 'a0', B: 'b2' }, parents: [0], subscores: [0, 1, 0.75, 0.75] },
    ]);
    expect(mergeTriples(pool, poolFronts(pool, 'instance'), new Set())).toEqual([]);
  });

  it('excludes triples already tried', () => {
    const pool = forked();
    const tried = new Set([tripleKey({ a: 1, b: 2, ancestor: 0 })]);
    expect(tripleKey({ a: 1, b: 2, ancestor: 0 })).toBe('1+2@0');
    expect(mergeTriples(pool, poolFronts(pool, 'instance'), tried)).toEqual([]);
  });

  it('excludes a merge whose child would just copy one parent (both rewrote only A)', () => {
    const pool = poolOf([
      { candidate: { A: 'a0', B: 'b0' }, parents: [], subscores: [0, 0] },
      { candidate: { A: 'a1', B: 'b0' }, parents: [0], subscores: [1, 0] },
      { candidate: { A: 'a2', B: 'b0' }, parents: [0], subscores: [0, 1] },
    ]);
    expect(mergeTriples(pool, poolFronts(pool, 'instance'), new Set())).toEqual([]);
  });

  it('ignores dominated candidates', () => {
    // Same lineage as `forked`, but c2 is never alone on a front (always tied with the better c1).
    const pool = poolOf([
      { candidate: { A: 'a0', B: 'b0' }, parents: [], subscores: [0, 0] },
      { candidate: { A: 'a1', B: 'b0' }, parents: [0], subscores: [1, 1] },
      { candidate: { A: 'a0', B: 'b2' }, parents: [0], subscores: [1, 0.5] },
    ]);
    expect(mergeTriples(pool, poolFronts(pool, 'instance'), new Set())).toEqual([]);
  });
});

describe('mergeSubsample', () => {
  it(`takes ${MERGE_SUBSAMPLE_SIZE} ids balanced between "a better", "b better" and ties, sorted`, () => {
    // a better on 0, 1; b better on 2, 3; tie on 4, 5. Turns a, b, tie, a, b -> 2 + 2 + 1.
    const subA = [1, 1, 0, 0, 0.5, 0.5];
    const subB = [0, 0, 1, 1, 0.5, 0.5];
    for (let seed = 0; seed < 20; seed++) {
      const ids = mergeSubsample(subA, subB, new Rng(seed));
      expect(ids).toHaveLength(5);
      expect(ids).toEqual(ids.slice().sort((x, y) => x - y));
      expect(ids.filter((j) => j <= 1)).toEqual([0, 1]);
      expect(ids.filter((j) => j >= 2 && j <= 3)).toEqual([2, 3]);
      expect(ids.filter((j) => j >= 4)).toHaveLength(1);
    }
  });

  it('fills from the other buckets when one runs dry', () => {
    // a better on 0..4, b better on 5 only, tie on 6, 7: a, b, tie, a, tie.
    const subA = [1, 1, 1, 1, 1, 0, 0.5, 0.5];
    const subB = [0, 0, 0, 0, 0, 1, 0.5, 0.5];
    const ids = mergeSubsample(subA, subB, new Rng(3));
    expect(ids).toHaveLength(5);
    expect(ids.filter((j) => j >= 5)).toEqual([5, 6, 7]);
    expect(ids.filter((j) => j < 5)).toHaveLength(2);
  });

  it('has size min(5, n)', () => {
    expect(mergeSubsample([1, 0, 0.5], [0, 1, 0.5], new Rng(1))).toEqual([0, 1, 2]);
    expect(mergeSubsample([1, 1], [1, 1], new Rng(1))).toEqual([0, 1]);
    expect(mergeSubsample([], [], new Rng(1))).toEqual([]);
    expect(mergeSubsample(new Array(40).fill(1), new Array(40).fill(0), new Rng(1))).toHaveLength(5);
  });

  it('is reproducible for a seed', () => {
    const subA = Array.from({ length: 30 }, (_, j) => j % 3);
    const subB = Array.from({ length: 30 }, (_, j) => (j * 7) % 3);
    expect(mergeSubsample(subA, subB, new Rng(8))).toEqual(mergeSubsample(subA, subB, new Rng(8)));
  });
});

describe('acceptMerge', () => {
  it('accepts a child that matches or beats the better parent on the subsample', () => {
    expect(acceptMerge(2.5, [2.5, 1])).toBe(true);
    expect(acceptMerge(2.5, [1, 2.5])).toBe(true);
    expect(acceptMerge(3, [2.5, 1])).toBe(true);
    expect(acceptMerge(2.25, [2.5, 1])).toBe(false);
  });
});

describe('planMerge', () => {
  it('plans the merge of 1 and 2: A from 1, B from 2, a balanced subsample and both parent sums', () => {
    const pool = forked();
    const plan = planMerge(pool, poolFronts(pool, 'instance'), new Set(), new Rng(4));
    expect(plan).not.toBeNull();
    expect(plan!.triple).toEqual({ a: 1, b: 2, ancestor: 0 });
    expect(plan!.child).toEqual({ A: 'a1', B: 'b2' });
    expect(plan!.subsample).toHaveLength(5);
    // Whatever ids are drawn: two where 1 scores 1 and 2 scores 0, two the reverse, one tie.
    expect(plan!.parentSums).toEqual([2.5, 2.5]);
  });

  it('reports each parent its own sum on the subsample (valset of 3: the subsample is all of it)', () => {
    const pool = poolOf([
      { candidate: { A: 'a0', B: 'b0' }, parents: [], subscores: [0, 0, 0] },
      { candidate: { A: 'a1', B: 'b0' }, parents: [0], subscores: [1, 0, 0.5] },
      { candidate: { A: 'a0', B: 'b2' }, parents: [0], subscores: [0, 0.75, 0.5] },
    ]);
    const plan = planMerge(pool, poolFronts(pool, 'instance'), new Set(), new Rng(2));
    expect(plan).toEqual({ triple: { a: 1, b: 2, ancestor: 0 }, child: { A: 'a1', B: 'b2' }, subsample: [0, 1, 2], parentSums: [1.5, 1.25] });
    expect(acceptMerge(1.5, plan!.parentSums)).toBe(true);
    expect(acceptMerge(1.25, plan!.parentSums)).toBe(false);
  });

  it('returns null when every triple has been tried or none exists', () => {
    const pool = forked();
    const fronts = poolFronts(pool, 'instance');
    expect(planMerge(pool, fronts, new Set(['1+2@0']), new Rng(1))).toBeNull();
    const seedOnly = poolOf([{ candidate: { A: 'a0' }, parents: [], subscores: [1] }]);
    expect(planMerge(seedOnly, poolFronts(seedOnly, 'instance'), new Set(), new Rng(1))).toBeNull();
  });
});
