import { describe, expect, it } from 'vitest';
import { withoutRecords, withRecord, withRecords } from '../src/gepa/search/recordsInFlight.js';

describe('the table of proposals in flight, copied', () => {
  const table = { 'p1-0': 1, 'p1-1': 2, 'merge-2': 3 };

  it('copies as a spread does: same keys in the same order, changes last, the original untouched', () => {
    const copy = withRecords(table, { 'p1-1': 20, 'p3-0': 4 });
    expect(Object.entries(copy)).toEqual(Object.entries({ ...table, ...{ 'p1-1': 20, 'p3-0': 4 } }));
    expect(table).toEqual({ 'p1-0': 1, 'p1-1': 2, 'merge-2': 3 });
  });

  it('sets one record as a spread with a computed key does: an existing id keeps its place, a new one comes last', () => {
    expect(Object.entries(withRecord(table, 'p1-0', 10))).toEqual(Object.entries({ ...table, ['p1-0']: 10 }));
    expect(Object.entries(withRecord(table, 'p4-1', 5))).toEqual([['p1-0', 1], ['p1-1', 2], ['merge-2', 3], ['p4-1', 5]]);
    expect(table).toEqual({ 'p1-0': 1, 'p1-1': 2, 'merge-2': 3 });
  });

  it('drops the records named, keeping the order of the rest', () => {
    expect(Object.keys(withoutRecords(table, ['p1-0', 'absent']))).toEqual(['p1-1', 'merge-2']);
    expect(Object.keys(table)).toEqual(['p1-0', 'p1-1', 'merge-2']);
  });
});
