// The table of proposals in flight is changed in place, and its order is the order the rules read
// it in (held children, in-flight parents): a new id comes last, a replaced record keeps its
// place, a deleted one leaves the rest in order, as the spread copies it replaced did.
import { describe, expect, it } from 'vitest';
import { emptyRecords, recordsFrom } from '../src/gepa/search/recordsInFlight.js';

describe('the table of proposals in flight', () => {
  it('keeps the order of a table copied by spreads: new ids last, replaced records in place, deletions closing up', () => {
    const table = emptyRecords<number>();
    let spread: Record<string, number> = {};
    const steps: Array<[string, number] | string> = [['p1-0', 1], ['p1-1', 2], ['merge-2', 3], ['p1-0', 10], 'p1-1', ['p4-1', 5], ['p1-1', 6], 'p1-0'];
    for (const step of steps) {
      if (typeof step === 'string') {
        delete table[step];
        const { [step]: _gone, ...rest } = spread;
        spread = rest;
      } else {
        table[step[0]] = step[1];
        spread = { ...spread, [step[0]]: step[1] };
      }
      expect(Object.entries(table)).toEqual(Object.entries(spread));
    }
    expect(Object.entries(table)).toEqual([['merge-2', 3], ['p4-1', 5], ['p1-1', 6]]);
  });

  it('copies a table read back from plain values in its order', () => {
    const plain = { 'p2-0': 2, 'p1-0': 1, 'merge-3': 3 };
    expect(Object.entries(recordsFrom(plain))).toEqual(Object.entries(plain));
  });
});
