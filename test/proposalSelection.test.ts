// Selecting a step's proposals for the valset: all accepted, the best margin, or the top k;
// deduplication within the step and against the pool; a reason for every proposal not kept.
import { describe, expect, it } from 'vitest';
import { judgeChild } from '../src/gepa/strategies/acceptance.js';
import { mayStartValsetEarly, selectProposals, type MinibatchOutcome, type PoolLookup } from '../src/gepa/strategies/proposalSelection.js';

/** A judged proposal with parent sum 1 and child sum 1 + margin (strict acceptance). */
const judged = (task: number, childHash: string, margin: number): MinibatchOutcome => ({
  task,
  status: 'judged',
  childHash,
  verdict: judgeChild('strict-improvement', [0.5, 0.5], [0.5, 0.5 + margin]),
});
const skipped = (task: number, reason: string): MinibatchOutcome => ({ task, status: 'skipped', reason });
const nothingInPool: PoolLookup = () => -1;

describe('selectProposals', () => {
  it("'all' keeps every accepted proposal and gives the others their reasons", () => {
    const outcomes = [judged(0, 'h0', 0.5), judged(1, 'h1', -0.25), skipped(2, 'parent is perfect on its minibatch'), judged(3, 'h3', 0.25)];
    expect(selectProposals(outcomes, 'all', nothingInPool)).toEqual([
      { task: 0, selected: true, reason: 'selected' },
      { task: 1, selected: false, reason: 'failed acceptance: child minibatch sum 0.75 vs parent 1' },
      { task: 2, selected: false, reason: 'parent is perfect on its minibatch' },
      { task: 3, selected: true, reason: 'selected' },
    ]);
  });

  it('a failed acceptance names both minibatch sums, including an exact tie under the strict rule', () => {
    const tie: MinibatchOutcome = { task: 0, status: 'judged', childHash: 'h', verdict: judgeChild('strict-improvement', [1, 0.5], [0.5, 1]) };
    const worse: MinibatchOutcome = { task: 1, status: 'judged', childHash: 'g', verdict: judgeChild('strict-improvement', [1, 0.5], [0.25, 1]) };
    expect(selectProposals([tie, worse], 'all', nothingInPool).map((d) => d.reason)).toEqual([
      'failed acceptance: child minibatch sum 1.5 vs parent 1.5',
      'failed acceptance: child minibatch sum 1.25 vs parent 1.5',
    ]);
  });

  it("'best' keeps only the largest margin; an equal margin goes to the earlier task", () => {
    const outcomes = [judged(0, 'h0', 0.5), judged(1, 'h1', 1), judged(2, 'h2', 1), judged(3, 'h3', -1)];
    expect(selectProposals(outcomes, 'best', nothingInPool)).toEqual([
      { task: 0, selected: false, reason: 'not selected: margin 0.5 is not among the best' },
      { task: 1, selected: true, reason: 'selected' },
      { task: 2, selected: false, reason: 'not selected: margin 1 is not among the best' },
      { task: 3, selected: false, reason: 'failed acceptance: child minibatch sum 0 vs parent 1' },
    ]);
  });

  it('{ topK: 2 } keeps the two largest margins', () => {
    const outcomes = [judged(0, 'h0', 0.25), judged(1, 'h1', 1), judged(2, 'h2', 0.5), judged(3, 'h3', 0.75)];
    expect(selectProposals(outcomes, { topK: 2 }, nothingInPool)).toEqual([
      { task: 0, selected: false, reason: 'not selected: margin 0.25 is not among the top 2' },
      { task: 1, selected: true, reason: 'selected' },
      { task: 2, selected: false, reason: 'not selected: margin 0.5 is not among the top 2' },
      { task: 3, selected: true, reason: 'selected' },
    ]);
  });

  it('a duplicate child does not take a top-k place, and its reason names the twin task', () => {
    const outcomes = [judged(0, 'same', 1), judged(1, 'same', 0.75), judged(2, 'x', 0.5), judged(3, 'y', 0.25)];
    expect(selectProposals(outcomes, { topK: 2 }, nothingInPool)).toEqual([
      { task: 0, selected: true, reason: 'selected' },
      { task: 1, selected: false, reason: 'duplicate of the child of task 0' },
      { task: 2, selected: true, reason: 'selected' },
      { task: 3, selected: false, reason: 'not selected: margin 0.25 is not among the top 2' },
    ]);
  });

  it("keeps the twin with the larger margin under 'best', the earlier task under 'all'", () => {
    const outcomes = [judged(0, 'same', 0.25), judged(1, 'same', 1)];
    expect(selectProposals(outcomes, 'best', nothingInPool)).toEqual([
      { task: 0, selected: false, reason: 'duplicate of the child of task 1' },
      { task: 1, selected: true, reason: 'selected' },
    ]);
    expect(selectProposals(outcomes, 'all', nothingInPool)).toEqual([
      { task: 0, selected: true, reason: 'selected' },
      { task: 1, selected: false, reason: 'duplicate of the child of task 0' },
    ]);
  });

  it('rejects a child already in the pool, naming its index, and lets the next best take its place', () => {
    const inPool: PoolLookup = (hash) => (hash === 'old' ? 4 : -1);
    const outcomes = [judged(0, 'old', 1), judged(1, 'new', 0.5)];
    expect(selectProposals(outcomes, 'best', inPool)).toEqual([
      { task: 0, selected: false, reason: 'child is already in the pool as candidate 4' },
      { task: 1, selected: true, reason: 'selected' },
    ]);
  });

  it('returns the decisions in the order of the outcomes given', () => {
    const outcomes = [judged(2, 'c', 0.25), skipped(0, 'no proposal'), judged(1, 'b', 0.75)];
    expect(selectProposals(outcomes, 'best', nothingInPool).map((d) => [d.task, d.selected])).toEqual([
      [2, false],
      [0, false],
      [1, true],
    ]);
  });

  it('selects nothing when nothing passes', () => {
    expect(selectProposals([judged(0, 'a', 0), skipped(1, 'no proposal')], 'all', nothingInPool).some((d) => d.selected)).toBe(false);
    expect(selectProposals([], 'best', nothingInPool)).toEqual([]);
  });
});

describe('mayStartValsetEarly', () => {
  const inPool: PoolLookup = (hash) => (hash === 'old' ? 0 : -1);

  it("is true only under 'all', for an accepted child that is new to the pool", () => {
    expect(mayStartValsetEarly('all', judged(0, 'new', 0.5), inPool)).toBe(true);
    expect(mayStartValsetEarly('all', judged(0, 'new', 0), inPool)).toBe(false);
    expect(mayStartValsetEarly('all', judged(0, 'old', 0.5), inPool)).toBe(false);
    expect(mayStartValsetEarly('all', skipped(0, 'no proposal'), inPool)).toBe(false);
    expect(mayStartValsetEarly('best', judged(0, 'new', 0.5), inPool)).toBe(false);
    expect(mayStartValsetEarly({ topK: 3 }, judged(0, 'new', 0.5), inPool)).toBe(false);
  });
});
