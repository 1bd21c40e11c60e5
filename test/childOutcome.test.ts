// The minibatch outcome of a child (judgeChildOutcome): against its parent by the acceptance
// rule, a merge's child against the better of its parents' sums, a rebased child against the
// candidate it was rebased onto (by the acceptance rule, whatever the proposal's kind).
import { describe, expect, it } from 'vitest';
import { judgeChildOutcome } from '../src/gepa/proposer/childCandidate.js';

const evals = (...scores: number[]) => scores.map((score) => ({ score }));
const child = { childHash: 'h1', evaluations: evals(1, 1, 0) };

describe('judgeChildOutcome', () => {
  it("judges a reflective proposal's child against its parent by the acceptance rule", () => {
    const parent = { against: 'parent' as const, evaluations: evals(1, 0, 1) };
    expect(judgeChildOutcome({ task: 2, acceptance: 'strict-improvement' }, child, parent)).toEqual({
      task: 2,
      status: 'judged',
      childHash: 'h1',
      verdict: { accepted: false, parentSum: 2, childSum: 2, margin: 0 },
    });
    expect(judgeChildOutcome({ task: 2, acceptance: 'improvement-or-equal' }, child, parent)).toMatchObject({ verdict: { accepted: true } });
  });

  it("judges a merge's child against the better of its parents' sums, not the parent evaluations", () => {
    const merge = { task: 0, acceptance: 'improvement-or-equal' as const, merge: { parentSums: [1, 2] as [number, number] } };
    expect(judgeChildOutcome(merge, child, { against: 'parent', evaluations: [] })).toMatchObject({ verdict: { accepted: true, parentSum: 2, childSum: 2 } });
  });

  it('judges a rebased child against its new base by the acceptance rule', () => {
    const proposal = { task: 1, acceptance: 'strict-improvement' as const, merge: { parentSums: [0, 0] as [number, number] } };
    expect(judgeChildOutcome(proposal, child, { against: 'rebase-onto', evaluations: evals(1, 0, 0) })).toMatchObject({ verdict: { accepted: true, parentSum: 1, childSum: 2, margin: 1 } });
  });
});
