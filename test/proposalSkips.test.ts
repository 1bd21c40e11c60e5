// The rules that end a reflective proposal before its child is judged (proposalSkips.ts), one
// stage at a time: each answers "skip, with why" or "go on, with what the next stage needs".
import { describe, expect, it } from 'vitest';
import { candidateHash } from '../src/gepa/core/candidateHash.js';
import { afterParentEvaluation, afterReflection, EVERY_CALL_FAILED, PARENT_PERFECT } from '../src/gepa/proposer/proposalSkips.js';
import type { Evaluation } from '../src/gepa/core/adapter.js';

const failed = (): Evaluation => ({ score: 0, failure: { kind: 'timeout', message: 'slow' } });
const settings = { skipPerfectScore: true, perfectScore: 1 };

describe('afterParentEvaluation', () => {
  it('skips when every call failed, even with skipPerfectScore off', () => {
    expect(afterParentEvaluation([failed(), failed()], { ...settings, skipPerfectScore: false })).toEqual({ kind: 'skip', reason: EVERY_CALL_FAILED });
  });

  it('goes on with the sum when only some calls failed', () => {
    expect(afterParentEvaluation([failed(), { score: 0.25 }, { score: 0.5 }], settings)).toEqual({ kind: 'go-on', parentSum: 0.75 });
  });

  it('skips a parent perfect on its minibatch only with skipPerfectScore', () => {
    const perfect = [{ score: 1 }, { score: 1.5 }];
    expect(afterParentEvaluation(perfect, settings)).toEqual({ kind: 'skip', reason: PARENT_PERFECT });
    expect(afterParentEvaluation(perfect, { ...settings, skipPerfectScore: false })).toEqual({ kind: 'go-on', parentSum: 2.5 });
    expect(afterParentEvaluation([{ score: 1 }, { score: 0.9 }], settings)).toEqual({ kind: 'go-on', parentSum: 1.9 });
  });

  it('goes on from an empty minibatch (nothing failed, nothing perfect)', () => {
    expect(afterParentEvaluation([], settings)).toEqual({ kind: 'go-on', parentSum: 0 });
  });
});

describe('afterReflection', () => {
  const parent = { instructions: 'Answer.', style: 'Short.' };
  const components = ['instructions', 'style'];

  it('goes on with the child of the new texts and its content hash', () => {
    const next = afterReflection(parent, components, [{ text: 'Answer in metres.', note: '' }, { text: null, note: 'empty reply' }]);
    const child = { instructions: 'Answer in metres.', style: 'Short.' };
    expect(next).toEqual({ kind: 'go-on', child, childHash: candidateHash(child) });
  });

  it('skips with the reason per component when no text is new', () => {
    const next = afterReflection(parent, components, [{ text: 'Answer.', note: 'unchanged text' }, { text: null, note: 'reflection failed: HTTP 500' }]);
    expect(next).toEqual({ kind: 'skip', reason: 'reflection proposed no new text (instructions: unchanged text; style: reflection failed: HTTP 500)' });
  });
});
