// The report's and the workbench's diffs (jsdiff's Myers word diff): exact parts for small
// hand-checked cases, the identity that dropping insertions gives the old text and dropping
// deletions the new one, and the bounded fallbacks for texts that share almost nothing.
import { describe, expect, it } from 'vitest';
import { MAX_EDITS, tokenDiff, wordDiff } from '../src/report/wordDiff.js';

const side = (parts: ReturnType<typeof wordDiff>, op: 'insert' | 'delete') =>
  parts.filter((p) => p.op !== op).map((p) => p.text).join('');

describe('wordDiff', () => {
  it('shows an appended instruction as one insertion', () => {
    expect(wordDiff('Answer the question.', 'Answer the question.\nReply with only the final number.')).toEqual([
      { op: 'same', text: 'Answer the question.' },
      { op: 'insert', text: '\nReply with only the final number.' },
    ]);
  });

  it('replaces one word in place', () => {
    expect(wordDiff('a b c', 'a x c')).toEqual([
      { op: 'same', text: 'a ' },
      { op: 'delete', text: 'b' },
      { op: 'insert', text: 'x' },
      { op: 'same', text: ' c' },
    ]);
  });

  it('folds whitespace matched between changes into one deletion and one insertion', () => {
    expect(wordDiff("Shop. Answer the customer's question.", 'Shop.\nPrices are rounded to whole dollars.')).toEqual([
      { op: 'same', text: 'Shop.' },
      { op: 'delete', text: " Answer the customer's question." },
      { op: 'insert', text: '\nPrices are rounded to whole dollars.' },
    ]);
  });

  it('reconstructs both texts', () => {
    const before = 'You are a helpful assistant.\nBe brief. Use dollars.\n';
    const after = 'You are a careful assistant.\nUse dollars and cents.\nBe brief.\n';
    const parts = wordDiff(before, after);
    expect(side(parts, 'insert')).toBe(before);
    expect(side(parts, 'delete')).toBe(after);
  });

  it('handles empty texts', () => {
    expect(wordDiff('', 'new')).toEqual([{ op: 'insert', text: 'new' }]);
    expect(wordDiff('old', '')).toEqual([{ op: 'delete', text: 'old' }]);
    expect(wordDiff('', '')).toEqual([]);
  });

  it('gives up on words past MAX_EDITS edits, so lines are diffed instead, and stays exact', () => {
    const many = (n: number, w: string) => Array.from({ length: n }, (_, i) => `${w}${i}`);
    const a = many(2100, 'a').join(' ');
    const b = many(2100, 'b').join(' ');
    expect(2 * 2100).toBeGreaterThan(MAX_EDITS);
    expect(tokenDiff(a, b, 'words')).toBeUndefined();
    expect(tokenDiff(a, b, 'lines')).toEqual([
      { op: 'delete', text: a },
      { op: 'insert', text: b },
    ]);
    const parts = wordDiff(a, b);
    expect(side(parts, 'insert')).toBe(a);
    expect(side(parts, 'delete')).toBe(b);
  });

  it('diffs a small edit of a long text as that edit (Myers: cost grows with the edit, not the length)', () => {
    const long = Array.from({ length: 20_000 }, (_, i) => `w${i}`).join(' ');
    const edited = long.replace('w10000 ', 'w10000 inserted ');
    expect(wordDiff(long, edited).filter((p) => p.op !== 'same')).toEqual([{ op: 'insert', text: 'inserted ' }]);
  });
});
