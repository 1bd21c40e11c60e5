// canonicalJson's two paths (data without objects stringified natively, the rest through the
// key-sorting replacer) give the same text, and sha256Hex the standard digest on either path.
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/identity/canonicalJson.js';
import { sha256Hex } from '../src/identity/contentHash.js';

/** The definition: every plain object's keys sorted, through the replacer, whatever the value. */
const sortedEverywhere = (value: unknown): string | undefined =>
  JSON.stringify(value, (_key, v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.keys(v as object).sort().map((k) => [k, (v as Record<string, unknown>)[k]])) : v));

describe('canonicalJson', () => {
  it('is the key-sorted JSON of any value, objects or none', () => {
    const values: unknown[] = [
      [['instructions', 'Answer.'], ['zeta', 'a "quoted" \u2028 text']],
      [1, -0, NaN, Infinity, 1e21, true, null, 'x'],
      [[[[[['too deep', { b: 1, a: 2 }]]]]]],
      [undefined, () => 1],
      [new Date(0)],
      Object.assign([1], { toJSON: () => ({ b: 1, a: 2 }) }),
      { z: 1, a: [{ y: 2, b: 3 }] },
      'text',
      42,
      null,
    ];
    for (const value of values) expect(canonicalJson(value)).toBe(sortedEverywhere(value));
    expect(canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] })).toBe('{"a":[2,{"c":4,"d":3}],"b":1}');
  });

  it('throws on what JSON cannot hold, as before', () => {
    expect(() => canonicalJson([1n])).toThrow(TypeError);
  });
});

describe('sha256Hex', () => {
  it('is the standard SHA-256 of the UTF-8 text', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});
