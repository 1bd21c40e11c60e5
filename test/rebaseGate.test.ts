// A rebased child's second gate as its proposer runs it (rebaseGate.ts): the examples fixed when
// the rebase is decided, and the outcome once both the child's and the new base's evaluations are in.
import { describe, expect, it } from 'vitest';
import { rebaseGateAfter, startRebaseGate } from '../src/gepa/proposer/rebaseGate.js';

const evals = (...scores: number[]) => scores.map((score) => ({ score }));
const onto = { instructions: 'Answer. Be kind.' };
const proposal = { task: 3, acceptance: 'strict-improvement' as const, childHash: 'rebased' };

describe('rebase gate', () => {
  it('judges on the minibatch examples where the first child beat its parent, or on all of them', () => {
    const where = startRebaseGate({ onto, ontoHash: 'o', gate: 'where-it-helped' }, [7, 3, 9], evals(1, 0, 0.5), evals(1, 1, 0.75));
    expect(where).toEqual({ onto, ontoHash: 'o', exampleIds: [3, 9] });
    expect(startRebaseGate({ onto, ontoHash: 'o', gate: 'whole-minibatch' }, [7, 3, 9], evals(1, 0, 0.5), evals(1, 1, 0.75)).exampleIds).toEqual([7, 3, 9]);
  });

  it('has an outcome only once both sides are in, in either order, against the new base', () => {
    const gate = startRebaseGate({ onto, ontoHash: 'o', gate: 'whole-minibatch' }, [7, 3], evals(0, 0), evals(1, 0));
    const ontoFirst = rebaseGateAfter(gate, 'onto', evals(1, 0), proposal);
    expect(ontoFirst.outcome).toBeUndefined();
    const both = rebaseGateAfter(ontoFirst, 'child', evals(1, 1), proposal);
    const outcome = { task: 3, status: 'judged', childHash: 'rebased', verdict: { accepted: true, parentSum: 1, childSum: 2, margin: 1 } };
    expect(both.outcome).toEqual(outcome);
    const childFirst = rebaseGateAfter(gate, 'child', evals(1, 1), proposal);
    expect(childFirst.outcome).toBeUndefined();
    expect(rebaseGateAfter(childFirst, 'onto', evals(1, 0), proposal).outcome).toEqual(outcome);
  });
});
