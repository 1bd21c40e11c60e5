// CPython's set iteration order for the reference tie order, built at once and grown one member
// at a time (how a front that a later candidate ties is ordered without rebuilding its set).
import { describe, expect, it } from 'vitest';
import { addedInPlace, copyOrder, grownSet, pythonSetOrder } from '../src/gepa/core/pythonSetOrder.js';
import { extendInstanceFronts, instanceFronts, removeDominated, type Fronts } from '../src/gepa/core/paretoFront.js';
import { Rng } from '../src/gepa/core/rng.js';

describe('pythonSetOrder', () => {
  it('iterates by hash-table slot, as CPython does', () => {
    // In an 8-slot table 8 and 9 take slots 0 and 1 (printed by python3 for {2} grown by 3, 8, 9).
    expect(pythonSetOrder([2, 3, 8, 9])).toEqual([8, 9, 2, 3]);
    // {0} grown by 7, 14, ..., 273 and copied with set() (python3's answer).
    expect(pythonSetOrder(Array.from({ length: 40 }, (_, k) => 7 * k))).toEqual(PYTHON_MULTIPLES_OF_7);
  });

  it('a set grown one member at a time orders as one built at once', () => {
    const rng = new Rng(11);
    for (let trial = 0; trial < 30; trial++) {
      let members: number[] = [];
      let set = grownSet([]);
      let next = 0;
      for (let n = 0; n < 300; n++) {
        next += 1 + rng.int(5);
        set = addedInPlace(set, next);
        members = [...members, next];
        expect(copyOrder(set)).toEqual(pythonSetOrder(members));
      }
    }
  });
});

describe('reference tie order on extended fronts', () => {
  it('removeDominated on fronts extended one candidate at a time, and on a second pool grown from an earlier one, equals it on fronts computed afresh', () => {
    const rng = new Rng(5);
    for (let trial = 0; trial < 20; trial++) {
      const examples = 1 + rng.int(8);
      // Few distinct scores, so fronts tie often and grow long.
      const rows: number[][] = [Array.from({ length: examples }, () => rng.int(3) / 2)];
      let fronts: Fronts = instanceFronts({ subscores: rows });
      let earlier: { fronts: Fronts; rows: number[][] } | undefined;
      const afresh = (rows: number[][]) => {
        const means = rows.map((row) => row.reduce((a, b) => a + b, 0) / row.length);
        return { means, dominated: removeDominated(instanceFronts({ subscores: rows }), means, 'reference') };
      };
      for (let n = 1; n < 120; n++) {
        rows.push(Array.from({ length: examples }, () => rng.int(3) / 2));
        fronts = extendInstanceFronts(fronts, rows, n) as Fronts;
        // Read only now and then: a batched step extends the fronts several times between reads.
        if (rng.int(3) !== 0) continue;
        const now = afresh(rows);
        expect(removeDominated(fronts, now.means, 'reference')).toEqual(now.dominated);
        // Fronts read before, whose sets the later ones took over and grew, read again: the same.
        if (earlier) {
          const then = afresh(earlier.rows);
          expect(removeDominated(earlier.fronts, then.means, 'reference')).toEqual(then.dominated);
          // A second pool grown from the earlier one (its set was taken over): built afresh, the same.
          const branchRows = [...earlier.rows, rows[n] as number[]];
          const branch = extendInstanceFronts(earlier.fronts, branchRows, branchRows.length - 1) as Fronts;
          const b = afresh(branchRows);
          expect(removeDominated(branch, b.means, 'reference')).toEqual(b.dominated);
        }
        earlier = { fronts, rows: rows.slice() };
      }
    }
  });
});

const PYTHON_MULTIPLES_OF_7 = [
  0, 259, 133, 7, 266, 140, 14, 273, 147, 21, 154, 28, 161, 35, 168, 42, 175, 49, 182, 56, 189, 63, 196, 70, 203, 77, 210, 84, 217, 91, 224, 98, 231, 105, 238, 112, 245, 119, 252,
  126,
];
