// What the progress display is told: RunEvents folded into calls, dollars, best and seed
// scores, candidates, proposals in flight, utilization and the share of the budget spent.
import { Writable } from 'node:stream';
import { SimulatedClock } from 'xstate';
import { steppingClock } from '../src/clock.js';
import { describe, expect, it } from 'vitest';
import { createProgressDisplay } from '../src/cli/progressDisplay.js';
import { RunProgress } from '../src/cli/runProgress.js';
import { test } from './support/toyRun.js';

describe('RunProgress', () => {
  it("folds a run's events", () => {
    const p = new RunProgress(4, { maxMetricCalls: 100, maxCostUsd: 2 }, 1000);
    expect(p.apply({ type: 'budget.updated', metricCalls: 10, reserved: 10, costUsd: 0.5 })).toEqual([]);
    expect(p.apply({ type: 'front.updated', bestIndex: 0, bestScore: 0.4, frontSize: 1 })).toEqual([{ kind: 'seed', score: 0.4 }]);
    p.apply({ type: 'proposal.started', step: 1, task: 0 });
    p.apply({ type: 'proposal.started', step: 1, task: 1 });
    p.apply({ type: 'proposal.ended', step: 1, task: 0, outcome: 'accepted', reason: 'accepted', staleness: 0 });
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

describe('progress that moves with every call (simulated time)', () => {
  test('the counter advances during the seed evaluation, and the final line equals the result', async ({ toyRun }) => {
    const clock = steppingClock(new SimulatedClock());
    let text = '';
    const stream = new Writable({
      write(chunk: Buffer | string, _encoding, callback) {
        text += chunk.toString();
        callback();
      },
    });
    const display = createProgressDisplay({ mode: 'lines', stream, workers: 2, budget: { maxMetricCalls: 300 }, clock });
    const progress = new RunProgress(2, { maxMetricCalls: 300 }, 0);
    const duringSeed: number[] = [];
    const { result } = await toyRun({
      clock,
      workers: 2,
      skipPerfectScore: false,
      onEvent: (event) => {
        progress.apply(event);
        display.onEvent(event);
      },
      onSlotInterval: (interval) => {
        progress.addInterval(interval);
        display.onSlotInterval(interval);
        if (progress.seedScore === undefined) duringSeed.push(progress.shownCalls());
      },
    });
    // One step per finished valset call of the seed (6 examples), before its score is known.
    expect(duringSeed).toEqual([1, 2, 3, 4, 5, 6]);
    display.stop(result.metricCalls);
    const last = text.trimEnd().split('\n').at(-1) ?? '';
    expect(last).toContain(`${result.metricCalls}/300 calls`);
    expect(result.metricCalls).toBeGreaterThan(250);
  });
});
