// Candidate identity: the hash depends on the component texts only, never on key order.
import { describe, expect, it } from 'vitest';
import { candidateHash, canonicalCandidateJson, sameCandidate } from '../src/gepa/core/candidateHash.js';

describe('candidateHash', () => {
  const c = { system: 'You are helpful.', tool: 'Search the web.' };

  it('is a 32-hex-digit string, stable across calls', () => {
    expect(candidateHash(c)).toMatch(/^[0-9a-f]{32}$/);
    expect(candidateHash({ ...c })).toBe(candidateHash(c));
  });

  it('does not depend on key order', () => {
    expect(candidateHash({ tool: 'Search the web.', system: 'You are helpful.' })).toBe(candidateHash(c));
    expect(canonicalCandidateJson({ b: '2', a: '1' })).toBe('[["a","1"],["b","2"]]');
  });

  it('changes with any change of text, however small', () => {
    const base = candidateHash(c);
    expect(candidateHash({ ...c, system: 'You are helpful' })).not.toBe(base);
    expect(candidateHash({ ...c, system: 'You are helpful. ' })).not.toBe(base);
    expect(candidateHash({ ...c, tool: 'search the web.' })).not.toBe(base);
  });

  it('changes with a component renamed, added or removed', () => {
    const base = candidateHash(c);
    expect(candidateHash({ System: c.system, tool: c.tool })).not.toBe(base);
    expect(candidateHash({ ...c, extra: '' })).not.toBe(base);
    expect(candidateHash({ system: c.system })).not.toBe(base);
  });

  it('cannot be fooled by moving text between components or across the key/value border', () => {
    expect(candidateHash({ a: 'xy', b: '' })).not.toBe(candidateHash({ a: 'x', b: 'y' }));
    expect(candidateHash({ ab: 'c' })).not.toBe(candidateHash({ a: 'bc' }));
  });
});

describe('sameCandidate', () => {
  it('is true for equal texts in any key order, false otherwise', () => {
    expect(sameCandidate({ a: '1', b: '2' }, { b: '2', a: '1' })).toBe(true);
    expect(sameCandidate({ a: '1', b: '2' }, { a: '1', b: '3' })).toBe(false);
    expect(sameCandidate({ a: '1' }, { a: '1', b: '' })).toBe(false);
  });
});
