// What the progress display is told: RunEvents folded into calls, dollars, best and seed
// scores, candidates, proposals in flight, utilization and the share of the budget spent.
import { describe, expect, it } from 'vitest';
import { RunProgress } from '../src/cli/runProgress.js';

describe('RunProgress', () => {
  it("folds a run's events", () => {
    const p = new RunProgress(4, { maxMetricCalls: 100, maxCostUsd: 2 }, 1000);
    expect(p.apply({ type: 'budget.updated', metricCalls: 10, reserved: 10, costUsd: 0.5 })).toEqual([]);
    expect(p.apply({ type: 'front.updated', bestIndex: 0, bestScore: 0.4, frontSize: 1 })).toEqual([{ kind: 'seed', score: 0.4 }]);
    p.apply({ type: 'proposal.started', step: 1, task: 0 });
    p.apply({ type: 'proposal.started', step: 1, task: 1 });
    p.apply({ type: 'proposal.ended', step: 1, task: 0, outcome: 'accepted', reason: 'accepted' });
    expect(p.inFlight).toBe(1);
    expect(p.apply({ type: 'candidate.accepted', index: 1, parents: [0], valScore: 0.3 })).toEqual([
      { kind: 'accepted', index: 1, parents: [0], valScore: 0.3, best: false },
    ]);
    expect(p.apply({ type: 'candidate.accepted', index: 2, parents: [0], valScore: 0.5 })[0]).toMatchObject({ best: true });
    p.apply({ type: 'front.updated', bestIndex: 2, bestScore: 0.5, frontSize: 2 });
    expect([p.seedScore, p.bestScore, p.bestIndex, p.candidates]).toEqual([0.4, 0.5, 2, 3]);
    // Dollars are the tighter budget: 0.5 of 2 vs 10 of 100 calls.
    expect(p.budgetFraction(1000)).toBe(0.25);
    p.addInterval({ slot: 0, kind: 'seed', start: 1000, end: 1200 });
    p.addInterval({ slot: 1, kind: 'seed', start: 1000, end: 1200 });
    expect(p.utilization(1100)).toBe(1); // capped: an interval may end after `now` was read
    expect(p.utilization(1200)).toBe(400 / (4 * 200));
  });

  it('has no budget fraction without a budget, and a time fraction with a timeout', () => {
    expect(new RunProgress(1, {}, 0).budgetFraction(5)).toBeUndefined();
    expect(new RunProgress(1, { timeoutMs: 100 }, 0).budgetFraction(25)).toBe(0.25);
  });
});
