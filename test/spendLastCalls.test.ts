// spendLastCalls (issue 39): a run spends the budget's last calls. Proposals the budget left cannot
// pay in full start with their minibatch evaluations reserved and their valset evaluation owed;
// a selected child of one is held until the calls are reserved (src/gepa/search/lastCalls.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openLedger, reserve, type BudgetLedger, type Reserved } from '../src/budget/budgetLedger.js';
import { diffRunConfigs, runConfigRecord } from '../src/storage/runConfigRecord.js';
import { resolveSettings } from '../src/config/runSettings.js';
import { createDemoTask, type DemoExample } from '../src/demo/demoTask.js';
import { optimize, optimizeAnything, type OptimizeConfig, type Schedule } from '../src/index.js';
import { decideHeld, payForGrants, UNPAID_VALSET_REASON } from '../src/gepa/search/lastCalls.js';
import type { Proposal } from '../src/gepa/core/proposal.js';
import { planAsyncProposals, planBatchedStep, type PlanInput } from '../src/gepa/search/proposalPlanner.js';
import { addSeed, startProgress } from '../src/gepa/search/searchProgress.js';
import { initialSearchState } from '../src/gepa/search/searchState.js';
import { test as toyTest } from './support/toyRun.js';
import { appendingReflection, countedWordsEvaluator } from './support/anythingTask.js';

const VALSET = 20;
const scratch = mkdtempSync(join(tmpdir(), 'gepa-last-calls-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function demoConfig(schedule: Schedule, seed: number, spendLastCalls?: boolean): OptimizeConfig<DemoExample> {
  const task = createDemoTask({ seed, trainSize: 60, valSize: VALSET, testSize: 10 });
  return { seedCandidate: task.seedCandidate, trainset: task.trainset, valset: task.valset, adapter: task.adapter, reflectionLm: task.reflectionLm, runIdentity: { reflectionLm: 'demo' }, schedule, workers: 8, maxMetricCalls: 5 * VALSET, seed, ...(spendLastCalls === undefined ? {} : { spendLastCalls }) };
}

describe('a budget of five valsets', () => {
  const schedules: Schedule[] = [{ kind: 'batched', parents: 1, perParent: 1 }, { kind: 'batched', parents: 4, perParent: 1 }, { kind: 'async', inFlight: 8 }];
  it('is spent to 95% or more, never past it, with spendLastCalls; without, runs end a fifth short', async () => {
    const spent: Record<string, number[]> = { off: [], on: [] };
    for (const schedule of schedules) {
      for (const seed of [0, 1, 2, 3, 5]) {
        spent.off?.push((await optimize(demoConfig(schedule, seed, false))).metricCalls);
        spent.on?.push((await optimize(demoConfig(schedule, seed, true))).metricCalls);
      }
    }
    expect(Math.min(...(spent.on as number[]))).toBeGreaterThanOrEqual(95);
    expect(Math.max(...(spent.on as number[]))).toBeLessThanOrEqual(100);
    expect(Math.min(...(spent.off as number[]))).toBeLessThanOrEqual(80);
  });
});

describe('a child held for its valset evaluation', () => {
  const V = 20;
  const judged = { task: 0, status: 'judged', childHash: 'c', verdict: { accepted: true, parentSum: 1, childSum: 2, margin: 1 } } as const;
  /** A proposal holding `calls`, accepted and selected, its valset owed. */
  function held(id: string, task: number, ledger: BudgetLedger, calls: number): { p: Proposal; ledger: BudgetLedger } {
    const r = reserve(ledger, calls) as Reserved;
    const p: Proposal = { id: id as Proposal['id'], step: 1, task, kind: 'reflective', parents: [0], poolSizeAtStart: 1, reservation: r.reservation, granted: true, outcome: { ...judged, task }, decision: { task, selected: true, reason: 'selected' }, valsetOwed: V };
    return { p, ledger: r.ledger };
  }
  function running(id: string, task: number, ledger: BudgetLedger, calls: number): { p: Proposal; ledger: BudgetLedger } {
    const r = reserve(ledger, calls) as Reserved;
    return { p: { id: id as Proposal['id'], step: 1, task, kind: 'reflective', parents: [0], poolSizeAtStart: 1, reservation: r.reservation, granted: false }, ledger: r.ledger };
  }

  it('async: reserves what comes back as it comes, is granted once all is reserved, and no new proposal takes those calls first', () => {
    // 40 calls: the child holds 6, another proposal in flight holds 26; 8 are left.
    let ledger = openLedger(40);
    const child = held('p2-0', 0, ledger, 6);
    const other = running('p3-0', 0, child.ledger, 26);
    ledger = other.ledger;
    const first = payForGrants({ proposals: { [child.p.id]: child.p, [other.p.id]: other.p }, stepIds: [], ledger }, [child.p.id]);
    expect(first.taken).toEqual([child.p.id]);
    expect(first.answers).toEqual([]);
    expect(first.state.proposals[child.p.id]).toMatchObject({ valsetHeld: true, granted: false, valsetOwed: 12, reservation: { calls: 14 } });
    expect(first.state.ledger).toMatchObject({ reservedCalls: 40, spentCalls: 0 });
    // The other proposal finishes having spent 6 of its 26: 20 come back, 12 of them to the child.
    const settled = { ...first.state.ledger, reservedCalls: 40 - 26, spentCalls: 6 };
    const finished = { ...other.p, spend: { paidCalls: 6, reflectionCalls: 1, reflectionCostUsd: 0, costUsd: 0 } };
    const second = decideHeld({ proposals: { ...first.state.proposals, [finished.id]: finished }, stepIds: [], ledger: settled });
    expect(second.answers).toEqual([{ id: child.p.id, answer: 'grant' }]);
    expect(second.state.proposals[child.p.id]).toMatchObject({ granted: true, valsetHeld: false, valsetOwed: 0, reservation: { calls: 26 } });
    expect(second.state.ledger).toMatchObject({ reservedCalls: 26, spentCalls: 6, maxMetricCalls: 40 });
  });

  it('async: is denied when nothing in flight could give calls back; a child waiting for its turn does not count', () => {
    let ledger = openLedger(30);
    const child = held('p2-0', 0, ledger, 6);
    const waiting = running('p3-0', 0, child.ledger, 6);
    ledger = waiting.ledger;
    // Judged and accepted, waiting for the proposals launched before it (this child among them).
    const waiter: Proposal = { ...waiting.p, outcome: judged, waitingFor: [child.p.id] };
    const paid = payForGrants({ proposals: { [child.p.id]: child.p, [waiter.id]: waiter }, stepIds: [], ledger }, [child.p.id]);
    expect(paid.answers).toEqual([{ id: child.p.id, answer: 'deny' }]);
    expect(paid.state.proposals[child.p.id]?.decision).toEqual({ task: 0, selected: false, reason: UNPAID_VALSET_REASON });
  });

  it('batched: waits for the rest of its step, then all or nothing, in task order', () => {
    // 60 calls: two children holding 6 each, a third task in flight holding 26; 22 left.
    let ledger = openLedger(60);
    const a = held('p1-1', 1, ledger, 6);
    const b = held('p1-2', 2, a.ledger, 6);
    const other = running('p1-0', 0, b.ledger, 26);
    ledger = other.ledger;
    const stepIds = [other.p.id, a.p.id, b.p.id];
    const proposals = { [other.p.id]: other.p, [a.p.id]: a.p, [b.p.id]: b.p };
    const waiting = payForGrants({ proposals, stepIds, ledger }, [a.p.id, b.p.id]);
    expect(waiting.answers).toEqual([]);
    expect(waiting.state.ledger).toEqual(ledger);
    // Task 0 finishes having spent all 26: 22 left, enough for task 1's valset and not task 2's.
    const done = { ...other.p, spend: { paidCalls: 26, reflectionCalls: 1, reflectionCostUsd: 0, costUsd: 0 } };
    const decided = decideHeld({ proposals: { ...waiting.state.proposals, [done.id]: done }, stepIds, ledger: { ...ledger, reservedCalls: 12, spentCalls: 26 } });
    expect(decided.answers).toEqual([
      { id: a.p.id, answer: 'grant' },
      { id: b.p.id, answer: 'deny' },
    ]);
    expect(decided.state.ledger).toMatchObject({ reservedCalls: 32, spentCalls: 26 });
    expect(decided.state.proposals[b.p.id]?.reservation).toEqual({ calls: 6 });
  });
});

describe('a run directory written before spendLastCalls existed', () => {
  it('is the same run as one with the option off, and one written with it on is refused with it off', () => {
    const config = demoConfig({ kind: 'batched', parents: 1, perParent: 1 }, 0, false);
    const settings = resolveSettings(config);
    expect(settings.spendLastCalls).toBe(false);
    const current = runConfigRecord(config, settings);
    const old = structuredClone(current);
    delete old.settings.spendLastCalls;
    expect(diffRunConfigs(old, current)).toEqual([]);
    const on = runConfigRecord({ ...config, spendLastCalls: true }, resolveSettings({ ...config, spendLastCalls: true }));
    expect(diffRunConfigs(on, current).map((d) => d.text)).toEqual(['spendLastCalls: true in the run directory, false now']);
  });
});

describe('the planner with spendLastCalls', () => {
  // Minibatch 2, valset 3: a proposal's worst case is 7 calls, its minibatch evaluations 4.
  const TABLE = { trainIds: [0, 1, 2, 3, 4, 5], valIds: [6, 7, 8] };
  const schedule = { kind: 'async' as const, rebase: 'off' as const, parentWeighting: 'front' as const };
  function input(ledger: BudgetLedger, spendLastCalls: boolean, kind: 'async' | 'batched' = 'async'): PlanInput {
    const fresh = initialSearchState({ seed: 3, minibatchSize: 2, maxMerges: 0, trackBestOutputs: false }, TABLE);
    const { search } = addSeed(fresh, startProgress(), { candidate: { instructions: 'Answer.' }, hash: 'seed', valset: { subscores: [0.5, 0.5, 0.5], objectives: [null, null, null] } }, 3);
    const settings = { schedule: kind === 'async' ? schedule : { kind }, frontType: 'instance', tieOrder: 'reference', stepMinibatches: 'fresh', parentSelection: 'pareto', componentSelection: 'round-robin', componentNames: ['instructions'], minibatchSize: 2, spendLastCalls } as const;
    return { search, settings, table: TABLE, budget: { ledger } };
  }
  /** Each launch as id:reserved calls:valset owed:minibatch size. */
  const owing = (plan: ReturnType<typeof planAsyncProposals>) => plan.launches.map((l) => `${l.proposal.id}:${l.proposal.reservation.calls}:${l.proposal.valsetOwed ?? 0}:${l.minibatch.length}`);

  it('starts a proposal owing its valset only once no full one could follow, even if every call in flight came back', () => {
    // 4 left and nothing in flight: no proposal of 7 can ever start again; one of 4 starts, owing 3.
    expect(owing(planAsyncProposals(input({ maxMetricCalls: 7, spentCalls: 3, reservedCalls: 0 }, true), 0, 4))).toEqual(['p1-0:4:3:2']);
    expect(planAsyncProposals(input({ maxMetricCalls: 7, spentCalls: 3, reservedCalls: 0 }, false), 0, 4).launches).toEqual([]);
    // 4 left, but 7 held by a proposal in flight could come back: wait for it.
    expect(planAsyncProposals(input({ maxMetricCalls: 14, spentCalls: 3, reservedCalls: 7 }, true), 1, 4).launches).toEqual([]);
  });

  it('cuts the minibatch of the last proposal owing its valset to the calls left, so at most one is left', () => {
    // 3 left: too few for a full proposal even with a minibatch of 1 (5), and for one owing its
    // valset with the whole minibatch (4); one with a minibatch of 1 owing its valset takes 2.
    const plan = planAsyncProposals(input({ maxMetricCalls: 7, spentCalls: 4, reservedCalls: 0 }, true), 0, 4);
    expect(owing(plan)).toEqual(['p1-0:2:3:1']);
    expect(plan.ledger).toEqual({ maxMetricCalls: 7, spentCalls: 4, reservedCalls: 2 });
    // Batched alike: one task of the step.
    expect(owing(planBatchedStep(input({ maxMetricCalls: 7, spentCalls: 4, reservedCalls: 0 }, true, 'batched'), { parents: 4, perParent: 1 }))).toEqual(['p1-0:2:3:1']);
    // One call left pays for nothing.
    expect(planAsyncProposals(input({ maxMetricCalls: 7, spentCalls: 6, reservedCalls: 0 }, true), 0, 4)).toMatchObject({ launches: [], stopReason: 'maxMetricCalls' });
  });

  it('first cuts the minibatch when that lets the calls left pay a last proposal in full', () => {
    // 6 left: a minibatch of 1 and the valset (1 + 1 + 3 = 5) are paid in full; the 1 left pays nothing more.
    expect(owing(planAsyncProposals(input({ maxMetricCalls: 9, spentCalls: 3, reservedCalls: 0 }, true), 0, 4))).toEqual(['p1-0:5:0:1']);
    const step = planBatchedStep(input({ maxMetricCalls: 9, spentCalls: 3, reservedCalls: 0 }, true, 'batched'), { parents: 2, perParent: 1 });
    expect(owing(step)).toEqual(['p1-0:5:0:1']);
    expect(step.ledger).toEqual({ maxMetricCalls: 9, spentCalls: 3, reservedCalls: 5 });
  });

  it('a batched step adds no last-call task beside a full one: the calls the full one gives back may pay a full proposal next step', () => {
    // 11 left: one full task (7); the 4 left would pay a task owing its valset, but 4 + 7 >= 7.
    expect(owing(planBatchedStep(input({ maxMetricCalls: 14, spentCalls: 3, reservedCalls: 0 }, true, 'batched'), { parents: 2, perParent: 1 }))).toEqual(['p1-0:7:0:2']);
  });
});

describe('whatever finishes first', () => {
  for (const schedule of [{ kind: 'async', inFlight: 4 }, { kind: 'batched', parents: 2, perParent: 2 }] as const) {
    toyTest(`${schedule.kind}: ends within one call of its budget, never past it, under reshuffled latencies`, async ({ toyRun }) => {
      for (const latencySalt of ['a', 'b', 'c', 'd', 'e', 'f']) {
        // Valset 6, minibatch 3: a full proposal costs 12 calls; a budget of 40 used to end 8 short.
        const { result } = await toyRun({ schedule, valsetSize: 6, maxMetricCalls: 40, spendLastCalls: true, latencySalt, skipPerfectScore: false });
        expect(result.metricCalls, latencySalt).toBeLessThanOrEqual(40);
        expect(result.metricCalls, latencySalt).toBeGreaterThanOrEqual(40 - 1);
      }
    });
  }
});

describe('every budget from five valsets up', () => {
  for (const schedule of [{ kind: 'async', inFlight: 4 }, { kind: 'batched', parents: 2, perParent: 1 }] as const) {
    toyTest(`${schedule.kind}: is spent to within one call, never past it, whatever the valset size`, async ({ toyRun }) => {
      // Valsets of 4 and 5 (a full proposal costs 10 and 11 calls, its minibatch evaluations 6):
      // every budget from five valsets to the next full proposal and beyond, under three latency draws.
      for (const valsetSize of [4, 5]) {
        for (let maxMetricCalls = 5 * valsetSize; maxMetricCalls <= 5 * valsetSize + 12; maxMetricCalls++) {
          for (const latencySalt of ['a', 'b', 'c']) {
            const { result } = await toyRun({ schedule, valsetSize, maxMetricCalls, spendLastCalls: true, latencySalt, skipPerfectScore: false });
            const at = `valset ${valsetSize}, budget ${maxMetricCalls}, salt ${latencySalt}`;
            expect(result.metricCalls, at).toBeLessThanOrEqual(maxMetricCalls);
            expect(result.metricCalls, at).toBeGreaterThanOrEqual(maxMetricCalls - 1);
          }
        }
      }
    });
  }
});

describe('a run resumed with a larger budget', () => {
  // On resume, the calls the first process paid and the resumed one has not replayed yet are held
  // out of the calls left (heldCalls): a held child's valset evaluation must leave them too.
  const named = { runIdentity: { reflectionLm: 'toy' } };
  for (const schedule of [{ kind: 'batched', parents: 2, perParent: 2 }, { kind: 'async', inFlight: 3 }] as const) {
    toyTest(`${schedule.kind}: stays within the larger budget, and pays only the calls the first run did not`, async ({ toyRun }) => {
      for (const [small, large] of [[90, 130], [60, 100], [70, 95]] as const) {
        const runDir = join(scratch, `${schedule.kind}-${small}-${large}`);
        const first = await toyRun({ ...named, runDir, schedule, maxMetricCalls: small, spendLastCalls: true, skipPerfectScore: false });
        const extended = await toyRun({ ...named, runDir, schedule, maxMetricCalls: large, spendLastCalls: true, skipPerfectScore: false });
        expect(extended.result.metricCalls, `${small} -> ${large}`).toBeLessThanOrEqual(large);
        expect(extended.result.metricCalls, `${small} -> ${large}`).toBeGreaterThanOrEqual(large - 1);
        expect(extended.task.evaluateCalls, `${small} -> ${large}`).toBe(extended.result.metricCalls - first.result.metricCalls);
      }
    });
  }
});

describe('spendLastCalls in single-task search (optimizeAnything)', () => {
  it('reserves a last proposal its two minibatch evaluations: the child-in-valset discount is not had while the valset is owed', async () => {
    // Seed 1, three proposals of 2 calls, 1 call left: a proposal owing its valset would spend 2 (the
    // parent's and the child's evaluations) and must not start on 1 (it broke the budget invariant).
    for (const maxMetricCalls of [8, 9, 12]) {
      const evaluator = countedWordsEvaluator();
      const result = await optimizeAnything({ seedCandidate: 'words:', evaluator, reflectionLm: appendingReflection(), maxMetricCalls, spendLastCalls: true });
      expect(evaluator.calls).toBe(result.metricCalls);
      expect(result.metricCalls).toBeLessThanOrEqual(maxMetricCalls);
      expect(result.metricCalls).toBeGreaterThanOrEqual(maxMetricCalls - 1);
    }
  });
});
