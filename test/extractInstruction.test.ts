// Extracting the new component text from a reflection reply: first-to-last fence, language tag
// dropped, one fence, no fence, and the replies that carry no proposal (null).
import { describe, expect, it } from 'vitest';
import { extractInstruction } from '../src/gepa/proposer/extractInstruction.js';

describe('extractInstruction', () => {
  it('takes the text between the first and the last fence, trimmed', () => {
    expect(extractInstruction('Here it is:\n```\nBe concise.\nCite sources.\n```\nHope this helps.')).toBe('Be concise.\nCite sources.');
  });

  it('spans from the first fence to the last, even across separate blocks', () => {
    expect(extractInstruction('```\nA\n```\nmiddle\n```\nB\n```')).toBe('A\n```\nmiddle\n```\nB');
  });

  it('keeps fences nested inside the instruction', () => {
    const reply = 'New text:\n```markdown\nAnswer in this format:\n```json\n{"answer": 4}\n```\nNothing else.\n```\n';
    expect(extractInstruction(reply)).toBe('Answer in this format:\n```json\n{"answer": 4}\n```\nNothing else.');
  });

  it.each([
    ['text', '```text\nBe concise.\n```', 'Be concise.'],
    ['markdown', '```markdown\n# Role\nYou answer math questions.\n```', '# Role\nYou answer math questions.'],
    ['md', '```md\nBe concise.\n```', 'Be concise.'],
    ['plain-text', '```plain-text\nBe concise.\n```', 'Be concise.'],
  ])('drops the language tag %s on the opening line', (_tag, reply, expected) => {
    expect(extractInstruction(reply)).toBe(expected);
  });

  it('keeps prose that sits on the opening fence line', () => {
    expect(extractInstruction('```Be concise and cite sources.\nNever guess.\n```')).toBe('Be concise and cite sources.\nNever guess.');
    expect(extractInstruction('```Solve step by step.```')).toBe('Solve step by step.');
  });

  it('with a single fence, takes the text after it (minus a tag)', () => {
    expect(extractInstruction('Here you go:\n```text\nBe concise.\nCite sources.')).toBe('Be concise.\nCite sources.');
    expect(extractInstruction('```\nBe concise.\n')).toBe('Be concise.');
  });

  it('with a single fence and nothing after it, takes the text before it', () => {
    expect(extractInstruction('Be concise.\nCite sources.\n```')).toBe('Be concise.\nCite sources.');
    expect(extractInstruction('  Be concise.\n```  \n\n')).toBe('Be concise.');
  });

  it('without a fence, returns the whole reply stripped', () => {
    expect(extractInstruction('  \n Be concise.\nCite sources. \n')).toBe('Be concise.\nCite sources.');
  });

  it.each([
    ['empty', ''],
    ['whitespace', '  \n\t \n'],
    ['empty fence', '```\n```'],
    ['touching fences', '``````'],
    ['fence with only a tag', '```text\n```'],
    ['blank fence with prose around', 'Sure! Here is the new text:\n```\n   \n```\nGood luck.'],
    ['a lone fence', '```'],
  ])('returns null for %s', (_name, reply) => {
    expect(extractInstruction(reply)).toBeNull();
  });
});
