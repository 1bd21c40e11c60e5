// Folding a step's finished proposals into the pool: selected children join in the order given,
// with their staleness; duplicates of pool members are refused; every other proposal is kept
// as a record with its reason.
import { describe, expect, it } from 'vitest';
import { judgeChild } from '../src/gepa/strategies/acceptance.js';
import { addCandidate, emptyPool, type CandidatePool } from '../src/gepa/core/candidatePool.js';
import { candidateHash } from '../src/gepa/core/candidateHash.js';
import type { Proposal } from '../src/gepa/core/proposal.js';
import { foldProposals } from '../src/gepa/search/proposalFold.js';
import type { Candidate } from '../src/gepa/core/adapter.js';

/** Seed (index 0) and one earlier child (index 1); valset of 2. */
function startPool(): CandidatePool {
  let pool = emptyPool();
  pool = addCandidate(pool, { candidate: { s: 'seed' }, parents: [], subscores: [0.5, 0.5], metricCallsAtDiscovery: 2 }).pool;
  pool = addCandidate(pool, { candidate: { s: 'older' }, parents: [0], subscores: [0.5, 0.75], metricCallsAtDiscovery: 9 }).pool;
  return pool;
}

const verdict = judgeChild('strict-improvement', [0.5, 0.5, 0], [1, 0.5, 0]); // 1 -> 1.5

const spend = { paidCalls: 0, reflectionCalls: 1, reflectionCostUsd: 0.25, costUsd: 0.25 };

function selected(task: number, child: Candidate, subscores: number[], poolSizeAtStart = 2): Proposal {
  return {
    id: `p3-${task}`,
    step: 3,
    task,
    kind: 'reflective',
    parents: [0],
    outcome: { task, status: 'judged', childHash: candidateHash(child), verdict },
    decision: { task, selected: true, reason: 'selected' },
    child,
    valset: { subscores, objectives: subscores.map(() => null) },
    poolSizeAtStart,
    reservation: { calls: 8 },
    granted: true,
    spend,
  };
}

describe('foldProposals', () => {
  it('adds selected children in the order given, each with the metric calls of now', () => {
    const result = foldProposals(startPool(), [selected(0, { s: 'x' }, [1, 0]), selected(1, { s: 'y' }, [0, 1])], 40);
    expect(result.added).toEqual([2, 3]);
    expect(result.pool.candidates.slice(2)).toEqual([{ s: 'x' }, { s: 'y' }]);
    expect(result.pool.parents.slice(2)).toEqual([[0], [0]]);
    expect(result.pool.valScores).toEqual([0.5, 0.625, 0.5, 0.5]);
    expect(result.pool.discoveryMetricCalls).toEqual([2, 9, 40, 40]);
    expect(result.records).toEqual([
      { step: 3, task: 0, kind: 'reflective', parents: [0], staleness: 0, reflectionCostUsd: 0.25, parentMinibatchSum: 1, childMinibatchSum: 1.5, outcome: 'accepted', reason: 'accepted', candidateIndex: 2 },
      { step: 3, task: 1, kind: 'reflective', parents: [0], staleness: 0, reflectionCostUsd: 0.25, parentMinibatchSum: 1, childMinibatchSum: 1.5, outcome: 'accepted', reason: 'accepted', candidateIndex: 3 },
    ]);
  });

  it('the given order decides the indices', () => {
    const result = foldProposals(startPool(), [selected(1, { s: 'y' }, [0, 1]), selected(0, { s: 'x' }, [1, 0])], 40);
    expect(result.pool.candidates.slice(2)).toEqual([{ s: 'y' }, { s: 'x' }]);
    expect(result.records.map((r) => [r.task, r.candidateIndex])).toEqual([
      [1, 2],
      [0, 3],
    ]);
  });

  it('records staleness as the pool additions since the parent was drawn', () => {
    // The pool had 1 candidate when this proposal drew its parent; it has 2 now.
    const result = foldProposals(startPool(), [selected(0, { s: 'x' }, [1, 0], 1)], 40);
    expect(result.records[0]?.staleness).toBe(1);
  });

  it('refuses a child already in the pool, before or added earlier in the same fold, naming its index', () => {
    const result = foldProposals(
      startPool(),
      [selected(0, { s: 'older' }, [0.5, 0.75]), selected(1, { s: 'x' }, [1, 0]), selected(2, { s: 'x' }, [1, 0])],
      40,
    );
    expect(result.added).toEqual([2]);
    expect(result.pool.candidates).toHaveLength(3);
    expect(result.records.map((r) => [r.task, r.outcome, r.reason])).toEqual([
      [0, 'rejected', 'child is already in the pool as candidate 1'],
      [1, 'accepted', 'accepted'],
      [2, 'rejected', 'child is already in the pool as candidate 2'],
    ]);
  });

  it('keeps the reasons of proposals not selected, skipped ones as skipped', () => {
    const notSelected: Proposal = {
      ...selected(0, { s: 'x' }, [1, 0]),
      decision: { task: 0, selected: false, reason: 'not selected: margin 0.5 is not among the best' },
    };
    const skipped: Proposal = {
      id: 'p3-1',
      step: 3,
      task: 1,
      kind: 'reflective',
      parents: [1],
      outcome: { task: 1, status: 'skipped', reason: 'parent is perfect on its minibatch' },
      decision: { task: 1, selected: false, reason: 'parent is perfect on its minibatch' },
      poolSizeAtStart: 2,
      reservation: { calls: 8 },
      granted: false,
      spend: { paidCalls: 3, reflectionCalls: 0, reflectionCostUsd: 0, costUsd: 0 },
    };
    const unfinished: Proposal = { ...selected(2, { s: 'z' }, [1, 1]), valset: undefined };
    const result = foldProposals(startPool(), [notSelected, skipped, unfinished], 40);
    expect(result.added).toEqual([]);
    expect(result.pool).toEqual(startPool());
    expect(result.records).toEqual([
      { step: 3, task: 0, kind: 'reflective', parents: [0], staleness: 0, reflectionCostUsd: 0.25, parentMinibatchSum: 1, childMinibatchSum: 1.5, outcome: 'rejected', reason: 'not selected: margin 0.5 is not among the best' },
      { step: 3, task: 1, kind: 'reflective', parents: [1], staleness: 0, reflectionCostUsd: 0, outcome: 'skipped', reason: 'parent is perfect on its minibatch' },
      { step: 3, task: 2, kind: 'reflective', parents: [0], staleness: 0, reflectionCostUsd: 0.25, parentMinibatchSum: 1, childMinibatchSum: 1.5, outcome: 'rejected', reason: 'the valset evaluation did not complete' },
    ]);
  });

  it('adds a merge child with both parents and the max of their component pointers', () => {
    const pool = { ...startPool(), componentPointers: [1, 0] };
    const merge: Proposal = { ...selected(0, { s: 'merged' }, [1, 1]), kind: 'merge', parents: [0, 1] };
    const result = foldProposals(pool, [merge], 50);
    expect(result.pool.parents[2]).toEqual([0, 1]);
    expect(result.pool.componentPointers).toEqual([1, 0, 1]);
    expect(result.records[0]).toMatchObject({ kind: 'merge', outcome: 'accepted', candidateIndex: 2 });
  });

  it('decides a proposal without a decision on its own: a verdict that failed, or a skip, keeps its reason', () => {
    const failed: Proposal = {
      ...selected(0, { s: 'x' }, [1, 0]),
      outcome: { task: 0, status: 'judged', childHash: candidateHash({ s: 'x' }), verdict: judgeChild('strict-improvement', [1, 1, 0], [1, 0.5, 0]) },
      decision: undefined,
      valset: undefined,
    };
    const { task: _t, outcome: _o, decision: _d, ...rest } = selected(1, { s: 'y' }, [0, 1]);
    const unfinished: Proposal = { ...rest, task: 1, child: undefined, valset: undefined };
    const result = foldProposals(startPool(), [failed, unfinished], 40);
    expect(result.records.map((r) => [r.outcome, r.reason])).toEqual([
      ['rejected', 'failed acceptance: child minibatch sum 1.5 vs parent 2'],
      ['skipped', 'an evaluation could not be completed'],
    ]);
  });

  it('does not change the pool it is given', () => {
    const pool = startPool();
    foldProposals(pool, [selected(0, { s: 'x' }, [1, 0])], 40);
    expect(pool).toEqual(startPool());
  });
});
