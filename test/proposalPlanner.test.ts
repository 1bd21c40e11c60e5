// The planner acts on the ledger's answers: every launch carries the reservation the ledger
// granted (its worst case, 2b + V), the plan returns the ledger with them in it, a short budget
// narrows a step to the reservations it grants, and a refusal names the limit that refused.
import { describe, expect, it } from 'vitest';
import { openLedger, remainingCalls, type BudgetLedger } from '../src/budget/budgetLedger.js';
import { planAsyncProposals, planBatchedStep, type PlanInput } from '../src/gepa/search/proposalPlanner.js';
import { addSeed, startProgress } from '../src/gepa/search/searchProgress.js';
import { initialSearchState } from '../src/gepa/search/searchState.js';

// Minibatch 2, valset 3: a reflective proposal's worst case is 2 * 2 + 3 = 7 calls.
const TABLE = { trainIds: [0, 1, 2, 3, 4, 5], valIds: [6, 7, 8] };

function input(ledger: BudgetLedger, limits: Omit<PlanInput['budget'], 'ledger'> = {}, schedule: PlanInput['settings']['schedule'] = { kind: 'batched' }): PlanInput {
  const fresh = initialSearchState({ seed: 3, minibatchSize: 2, maxMerges: 0, trackBestOutputs: false }, TABLE);
  const valset = { subscores: [0.5, 0.5, 0.5], objectives: [null, null, null] };
  const { search } = addSeed(fresh, startProgress(), { candidate: { instructions: 'Answer.' }, hash: 'seed', valset }, 3);
  return {
    search,
    settings: { schedule, frontType: 'instance', tieOrder: 'reference', stepMinibatches: 'fresh', parentSelection: 'pareto', componentSelection: 'round-robin', componentNames: ['instructions'], minibatchSize: 2 },
    table: TABLE,
    budget: { ledger, ...limits },
  };
}

describe('the proposal planner and the ledger', () => {
  it('a 2x2 step takes four reservations of 7 calls, one per launch, and returns the ledger holding them', () => {
    const plan = planBatchedStep(input(openLedger(100, 3)), { parents: 2, perParent: 2 });
    expect(plan.launches.map((l) => l.proposal.reservation.calls)).toEqual([7, 7, 7, 7]);
    expect([plan.ledger.spentCalls, plan.ledger.reservedCalls, remainingCalls(plan.ledger)]).toEqual([3, 28, 69]);
    expect(plan.stopReason).toBeUndefined();
  });

  it('a step narrows to the reservations the budget grants, held calls counted', () => {
    // 3 spent of 40: 37 left, 10 held for a resumed run's unreplayed work: 27 pay for 3 tasks of 7.
    const plan = planBatchedStep(input(openLedger(40, 3), { heldCalls: 10 }), { parents: 2, perParent: 2 });
    expect(plan.launches.map((l) => l.proposal.id)).toEqual(['p1-0', 'p1-1', 'p1-2']);
    expect(plan.ledger.reservedCalls).toBe(21);
  });

  it('a refusal stops the run with the limit that refused, and reserves nothing', () => {
    const calls = planBatchedStep(input(openLedger(9, 3)), { parents: 2, perParent: 2 });
    expect([calls.launches.length, calls.stopReason, calls.ledger.reservedCalls]).toEqual([0, 'maxMetricCalls', 0]);
    const dollars = planBatchedStep(input(openLedger(100, 3), { dollarsExhausted: true }), { parents: 2, perParent: 2 });
    expect([dollars.launches.length, dollars.stopReason]).toEqual([0, 'maxCostUsd']);
  });

  it('async refills up to its width while the ledger grants, each proposal of its own number', () => {
    const schedule = { kind: 'async' as const, rebase: 'off' as const, parentWeighting: 'front' as const };
    const wide = planAsyncProposals(input(openLedger(100, 3), {}, schedule), 1, 4);
    expect(wide.launches.map((l) => `${l.proposal.id}:${l.proposal.reservation.calls}`)).toEqual(['p1-0:7', 'p2-0:7', 'p3-0:7']);
    expect(wide.ledger.reservedCalls).toBe(21);
    // 17 left pay for two.
    const short = planAsyncProposals(input(openLedger(20, 3), {}, schedule), 0, 4);
    expect([short.launches.length, short.ledger.reservedCalls, short.stopReason]).toEqual([2, 14, undefined]);
  });

  it('async perParent: a group shares its first proposal\'s parent and minibatch, its siblings reserve 7 - 2 calls, it waits for N free places, and the budget cuts it', () => {
    const schedule = { kind: 'async' as const, rebase: 'off' as const, parentWeighting: 'front' as const };
    const groups = planAsyncProposals(input(openLedger(100, 3), {}, schedule), 0, 6, 3);
    expect(groups.launches.map((l) => `${l.proposal.id}:${l.proposal.reservation.calls}:${l.proposal.siblingOf ?? '-'}`)).toEqual(['p1-0:7:-', 'p2-0:5:1', 'p3-0:5:1', 'p4-0:7:-', 'p5-0:5:4', 'p6-0:5:4']);
    const [first, ...siblings] = groups.launches.slice(0, 3);
    for (const s of siblings) expect([s.parent, s.minibatch, s.components]).toEqual([first?.parent, first?.minibatch, first?.components]);
    expect(groups.search.step).toBe(6);
    // The same draws as one proposal at a time: a group's first proposal is the one N = 1 would start.
    expect(planAsyncProposals(input(openLedger(100, 3), {}, schedule), 0, 1).launches[0]?.minibatch).toEqual(first?.minibatch);
    // Two places free of three: nothing starts until a whole group's are.
    expect(planAsyncProposals(input(openLedger(100, 3), {}, schedule), 4, 6, 3).launches).toEqual([]);
    // 12 calls left (of 15, 3 spent): the first's 7 and one sibling's 5; the group is cut to two.
    const cut = planAsyncProposals(input(openLedger(15, 3), {}, schedule), 0, 6, 3);
    expect(cut.launches.map((l) => l.proposal.reservation.calls)).toEqual([7, 5]);
    expect(remainingCalls(cut.ledger)).toBe(0);
  });
});
