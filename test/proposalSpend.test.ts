// What a proposal has spent (addSpend): every reply's charge added once, metric calls and
// reflection calls apart, dollars of both in the total.
import { describe, expect, it } from 'vitest';
import { addSpend, NOTHING_SPENT, type PaidReply } from '../src/gepa/core/proposal.js';

describe('addSpend', () => {
  it('adds metric calls from evaluations and failed requests, reflections apart, dollars of both', () => {
    const replies: PaidReply[] = [
      { type: 'evaluated', paidCalls: 3, costUsd: 0.5 },
      { type: 'reflected', costUsd: 0.25 },
      { type: 'reflected', costUsd: 0 },
      { type: 'evaluator.failed', paidCalls: 2, costUsd: 0.125 },
    ];
    expect(replies.reduce(addSpend, NOTHING_SPENT)).toEqual({ paidCalls: 5, reflectionCalls: 2, reflectionCostUsd: 0.25, costUsd: 0.875 });
  });

  it('leaves the spend it is given as it was', () => {
    const before = { paidCalls: 1, reflectionCalls: 0, reflectionCostUsd: 0, costUsd: 0.5 };
    expect(addSpend(before, { type: 'evaluated', paidCalls: 0, costUsd: 0 })).toEqual(before);
    expect(before).toEqual({ paidCalls: 1, reflectionCalls: 0, reflectionCostUsd: 0, costUsd: 0.5 });
    expect(NOTHING_SPENT).toEqual({ paidCalls: 0, reflectionCalls: 0, reflectionCostUsd: 0, costUsd: 0 });
  });
});
