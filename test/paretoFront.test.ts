// Pareto fronts over valset scores (instance, objective, hybrid, cartesian) and the removal of
// dominated candidates, on small hand-made tables whose answers are worked out in comments.
import { describe, expect, it } from 'vitest';
import {
  cartesianFronts,
  computeFronts,
  instanceFronts,
  nonDominatedCandidates,
  objectiveFronts,
  removeDominated,
  type Fronts,
  type ScoreTable,
} from '../src/gepa/core/paretoFront.js';
import { Rng } from '../src/gepa/core/rng.js';

const meanOf = (row: readonly number[]): number => row.reduce((a, b) => a + b, 0) / row.length;

describe('instanceFronts', () => {
  it('lists, per example, the candidates tied at the best score', () => {
    const table: ScoreTable = {
      subscores: [
        [0.5, 1.0, 0.0],
        [0.5, 0.5, 0.8],
        [0.9, 0.5, 0.8],
      ],
    };
    // e0: best 0.9 -> {2}; e1: best 1.0 -> {0}; e2: 0.8 tied by 1 and 2.
    expect(instanceFronts(table)).toEqual([[2], [0], [1, 2]]);
  });

  it('an equal score joins a front and a higher one replaces it', () => {
    const rows = [[0.5], [0.5], [0.7], [0.7]];
    expect(instanceFronts({ subscores: rows.slice(0, 2) })).toEqual([[0, 1]]);
    expect(instanceFronts({ subscores: rows.slice(0, 3) })).toEqual([[2]]);
    expect(instanceFronts({ subscores: rows })).toEqual([[2, 3]]);
  });

  it('equal fronts are one array, so a candidate that ties them is added once (same members as apart)', () => {
    // Examples 0 and 2: candidates 0 and 1 tie at 1; example 1: candidate 0 alone.
    const fronts = instanceFronts({ subscores: [[1, 1, 1], [1, 0, 1]] });
    expect(fronts).toEqual([[0, 1], [0], [0, 1]]);
    expect(fronts[0]).toBe(fronts[2]);
    expect(fronts[0]).not.toBe(fronts[1]);
  });

  it('ignores NaN scores and gives no fronts for an empty table', () => {
    expect(instanceFronts({ subscores: [[Number.NaN], [0.1]] })).toEqual([[1]]);
    expect(instanceFronts({ subscores: [] })).toEqual([]);
  });
});

describe('objective, hybrid and cartesian fronts', () => {
  // Two examples, two objectives. Means per objective:
  //   c0 acc (1+0)/2 = 0.5, speed (0.2+0.4)/2 = 0.3
  //   c1 acc 0.5,           speed 0.9
  //   c2 acc 1,             speed 0.1
  const table: ScoreTable = {
    subscores: [
      [1, 0],
      [0.5, 0.5],
      [1, 1],
    ],
    objectives: [
      [{ acc: 1, speed: 0.2 }, { acc: 0, speed: 0.4 }],
      [{ acc: 0.5, speed: 0.9 }, { acc: 0.5, speed: 0.9 }],
      [{ acc: 1, speed: 0.1 }, { acc: 1, speed: 0.1 }],
    ],
  };

  it('objective: one front per objective name (sorted), on the per-candidate mean', () => {
    expect(objectiveFronts(table)).toEqual([[2], [1]]);
    expect(computeFronts(table, 'objective')).toEqual([[2], [1]]);
  });

  it('cartesian: one front per (objective, example), objective-major', () => {
    // acc e0: 1, .5, 1 -> {0,2}; acc e1: 0, .5, 1 -> {2}; speed e0: .2, .9, .1 -> {1}; speed e1: {1}
    expect(cartesianFronts(table)).toEqual([[0, 2], [2], [1], [1]]);
    expect(computeFronts(table, 'cartesian')).toEqual([[0, 2], [2], [1], [1]]);
  });

  it('hybrid: the instance fronts followed by the objective fronts', () => {
    // instance: e0 {0,2} (1, .5, 1), e1 {2}
    expect(computeFronts(table, 'hybrid')).toEqual([[0, 2], [2], [2], [1]]);
  });

  it('instance is the default type', () => {
    expect(computeFronts(table)).toEqual([[0, 2], [2]]);
  });

  it('an objective missing on some examples is averaged over the examples that have it', () => {
    const partial: ScoreTable = {
      subscores: [
        [0, 0],
        [0, 0],
      ],
      // c0 cost mean over e1 only = 0.6; c1 = (0.5 + 0.5) / 2 = 0.5
      objectives: [
        [null, { cost: 0.6 }],
        [{ cost: 0.5 }, { cost: 0.5 }],
      ],
    };
    expect(objectiveFronts(partial)).toEqual([[0]]);
    // cartesian e0: only c1 has a value
    expect(cartesianFronts(partial)).toEqual([[1], [0]]);
  });

  it('every type falls back to instance fronts without objective scores', () => {
    const plain: ScoreTable = { subscores: [[1, 0], [0, 1]] };
    const undefinedCells: ScoreTable = { subscores: plain.subscores, objectives: [[null, null], [null, null]] };
    for (const t of [plain, undefinedCells]) {
      expect(computeFronts(t, 'objective')).toEqual([[0], [1]]);
      expect(computeFronts(t, 'hybrid')).toEqual([[0], [1]]);
      expect(computeFronts(t, 'cartesian')).toEqual([[0], [1]]);
    }
  });
});

describe('removeDominated', () => {
  it('never removes a candidate that is the only best on some front, whatever its mean', () => {
    // c0 is alone on front 0 and has the lowest mean.
    const fronts: Fronts = [[0], [0, 1], [1, 2]];
    expect(removeDominated(fronts, [0.1, 0.9, 0.5])).toEqual([[0], [0, 1], [1]]);
  });

  it('removes a candidate that is always tied with a better-mean one', () => {
    // c0 only appears next to c1 (mean 0.6 > 0.4): dropped. c2 is alone on the last front.
    const fronts: Fronts = [[0, 1], [0, 1, 2], [2]];
    expect(removeDominated(fronts, [0.4, 0.6, 0.5])).toEqual([[1], [1, 2], [2]]);
    expect(nonDominatedCandidates(fronts, [0.4, 0.6, 0.5])).toEqual([1, 2]);
  });

  it('scans in ascending mean: with the same fronts, the lower-mean twin is the one removed', () => {
    // c0 and c1 appear only on the same front: whichever is tried first (lower mean) goes.
    const fronts: Fronts = [[0, 1]];
    expect(removeDominated(fronts, [0.3, 0.7])).toEqual([[1]]);
    expect(removeDominated(fronts, [0.7, 0.3])).toEqual([[0]]);
  });

  it('on equal means tries the higher index first, so the earlier candidate survives', () => {
    expect(removeDominated([[0, 1]], [0.5, 0.5])).toEqual([[0]]);
    expect(removeDominated([[2, 5], [2, 5]], [0, 0, 0.5, 0, 0, 0.5])).toEqual([[2], [2]]);
  });

  it('ascending-mean order decides which of three pairwise-tied candidates survive', () => {
    // Fronts from the table: e0 {0,1}, e1 {1,2}, e2 {0,2}, e3 {0}.
    // c0 is alone on e3: it always stays. c1 and c2 are each dominated while the other is alive.
    // Table A: means c0 .75, c1 .625, c2 .5 -> c2 tried first and dropped (e1 has c1, e2 has
    // c0); then c1 is alone on e1 and stays: survivors {0, 1}.
    const tableA = [
      [1, 0, 1, 1],
      [1, 1, 0, 0.5],
      [0, 1, 1, 0],
    ];
    // Table B swaps the last column of c1 and c2: c1 .5, c2 .625 -> c1 dropped: survivors {0, 2}.
    const tableB = [
      [1, 0, 1, 1],
      [1, 1, 0, 0],
      [0, 1, 1, 0.5],
    ];
    const frontsA = instanceFronts({ subscores: tableA });
    const frontsB = instanceFronts({ subscores: tableB });
    expect(frontsA).toEqual([[0, 1], [1, 2], [0, 2], [0]]);
    expect(frontsB).toEqual(frontsA);
    expect(tableA.map(meanOf)).toEqual([0.75, 0.625, 0.5]);
    expect(tableB.map(meanOf)).toEqual([0.75, 0.5, 0.625]);
    expect(removeDominated(frontsA, tableA.map(meanOf))).toEqual([[0, 1], [1], [0], [0]]);
    expect(nonDominatedCandidates(frontsA, tableA.map(meanOf))).toEqual([0, 1]);
    expect(removeDominated(frontsB, tableB.map(meanOf))).toEqual([[0], [2], [0, 2], [0]]);
    expect(nonDominatedCandidates(frontsB, tableB.map(meanOf))).toEqual([0, 2]);
  });

  it('does not modify the fronts it is given', () => {
    const fronts: Fronts = [[0, 1], [0, 1, 2], [2]];
    removeDominated(fronts, [0.4, 0.6, 0.5]);
    expect(fronts).toEqual([[0, 1], [0, 1, 2], [2]]);
  });

  it('gives the same survivors whether equal fronts are one shared array or separate copies', () => {
    const rng = new Rng(78);
    for (let trial = 0; trial < 100; trial++) {
      const candidates = 1 + rng.int(6);
      const pool = Array.from({ length: 4 }, () => [...new Set(Array.from({ length: 1 + rng.int(3) }, () => rng.int(candidates)))].sort((a, b) => a - b));
      // Each example's front is one of a few arrays, several times over.
      const shared = Array.from({ length: 8 }, () => pool[rng.int(pool.length)] as number[]);
      const copies = shared.map((front) => [...front]);
      const means = Array.from({ length: candidates }, () => rng.int(4) / 4);
      expect(removeDominated(shared, means)).toEqual(removeDominated(copies, means));
    }
  });

  it('on random tables: no front empties, sole bests survive, every survivor is alone somewhere', () => {
    const rng = new Rng(77);
    for (let trial = 0; trial < 200; trial++) {
      const candidates = 1 + rng.int(6);
      const examples = 1 + rng.int(6);
      // Scores on a coarse grid so ties are common.
      const subscores = Array.from({ length: candidates }, () => Array.from({ length: examples }, () => rng.int(3) / 2));
      const means = subscores.map(meanOf);
      const fronts = instanceFronts({ subscores });
      const kept = removeDominated(fronts, means);
      const survivors = new Set(kept.flat());
      for (const front of kept) expect(front.length).toBeGreaterThan(0);
      for (const front of fronts) if (front.length === 1) expect(survivors.has(front[0] as number)).toBe(true);
      for (const c of survivors) expect(kept.some((front) => front.length === 1 && front[0] === c)).toBe(true);
      expect(nonDominatedCandidates(fronts, means)).toEqual([...survivors].sort((a, b) => a - b));
    }
  });
});

describe('nonDominatedCandidates', () => {
  it('lists the survivors once each, ascending', () => {
    expect(nonDominatedCandidates([[3], [1, 3], [1], [0, 1]], [0.9, 0.5, 0, 0.4])).toEqual([1, 3]);
    expect(nonDominatedCandidates([], [])).toEqual([]);
  });
});
