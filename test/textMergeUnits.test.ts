import { describe, expect, it } from 'vitest';
import { mergeTexts } from '../src/gepa/proposer/textMerge.js';

// The merge pairs a shared opening of the texts unit by unit before it compares the rest; these
// are texts whose units repeat after that opening, where another pairing would merge differently
// (each expected text is what the merge gave before it skipped the opening).
describe('mergeTexts with repeated units after a shared opening', () => {
  it.each([
    ['Be brief. Be kind. Be brief.', 'Be brief. Be kind. Be brief. Sign off.', 'Be brief. Cite sources. Be kind. Be brief.', 'Be brief. Cite sources. Be kind. Be brief. Sign off.'],
    ['A. B. A. B.', 'A. B. A. B. C.', 'A. B. B. A. B.', 'A. B. B. A. B. C.'],
    ['Answer. kw1. kw2. kw3.', 'Answer. kw1. kw2. kw3. kw4.', 'Answer. kw1. kw2. kw3. kw5.', 'Answer. kw1. kw2. kw3. kw4. kw5.'],
    ['Answer. kw1. kw2.', 'Answer. kw1. kw2. kw1.', 'Answer. kw1.', 'Answer. kw1. kw1.'],
  ])('merges %j', (base, ours, theirs, merged) => {
    expect(mergeTexts(base, ours, theirs)).toEqual({ ok: true, text: merged });
  });
});
