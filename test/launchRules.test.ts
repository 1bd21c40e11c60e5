// The launch rules (src/gepa/search/launchRules.ts) on their own, as tables: a run's state, the
// schedule's shape and the moment in; what starts, and who asks for each parent evaluation, out.
// `+` is a launch whose proposer is spawned now, `?` one whose parent evaluation the optimizer asks
// for itself (parent-first); `nothing` is no answer at all (a stop reason, or a verdict while held
// children keep their places); `[] stop` a plan that starts nothing and stops the run.
import { describe, expect, it } from 'vitest';
import { reserve, type BudgetLedger, type Reserved } from '../src/budget/budgetLedger.js';
import { addCandidate } from '../src/gepa/core/candidatePool.js';
import type { Proposal } from '../src/gepa/core/proposal.js';
import { nextLaunches, parentRequestId, type LaunchMoment, type LaunchRun } from '../src/gepa/search/launchRules.js';
import type { LaunchShape } from '../src/gepa/search/launchShape.js';
import type { PlannerSettings } from '../src/gepa/search/proposalPlanner.js';
import { addSeed, startProgress } from '../src/gepa/search/searchProgress.js';
import { startRun } from '../src/gepa/search/searchRun.js';

// Minibatch 2, valset 3: a reflective proposal's worst case is 2 * 2 + 3 = 7 calls.
const TABLE = { trainIds: [0, 1, 2, 3, 4, 5], valIds: [6, 7, 8] };
const SEED_CALLS = 3;

const SETTINGS: PlannerSettings = {
  schedule: { kind: 'async', rebase: 'off', parentWeighting: 'front' },
  frontType: 'instance',
  tieOrder: 'reference',
  stepMinibatches: 'fresh',
  parentSelection: 'pareto',
  componentSelection: 'round-robin',
  componentNames: ['a', 'b'],
  minibatchSize: 2,
};

/** What a row sets of the run; the rest is a run whose seed was just folded. */
interface RunRow {
  /** The call budget (the seed's 3 calls spent). Default 100. */
  budget?: number;
  /** Proposals in flight, `true` for one whose child is held in the launch-order wait. */
  inFlight?: boolean[];
  parentFirst?: boolean;
  stopped?: boolean;
  /** Two children of the seed that improved different components, and a merge due. */
  mergeDue?: boolean;
}

/** A proposal launched at `step` holding 7 calls; held: its child accepted and waiting for the one before it. */
function inFlight(step: number, held: boolean, ledger: BudgetLedger): { p: Proposal; ledger: BudgetLedger } {
  const r = reserve(ledger, 7) as Reserved;
  const waiting = held ? { outcome: { task: 0, status: 'judged', childHash: 'c', verdict: { accepted: true, parentSum: 0, childSum: 1, margin: 1 } } as const, child: { a: 'x', b: 'y' }, waitingFor: [`p${step - 1}-0` as const] } : {};
  return { p: { id: `p${step}-0`, step, task: 0, kind: 'reflective', parents: [0], poolSizeAtStart: 1, reservation: r.reservation, granted: false, ...waiting }, ledger: r.ledger };
}

function run(row: RunRow): LaunchRun {
  const start = startRun({ seed: 3, minibatchSize: 2, maxMerges: row.mergeDue ? 1 : 0, trackBestOutputs: false, schedule: { kind: 'batched', parents: 1, perParent: 1 }, maxMetricCalls: row.budget ?? 100 }, TABLE, SEED_CALLS);
  const seeded = addSeed(start.search, startProgress(), { candidate: { a: 'A', b: 'B' }, hash: 'seed', valset: { subscores: [0.5, 0.5, 0.5], objectives: [null, null, null] } }, SEED_CALLS);
  let { search } = seeded;
  if (row.mergeDue) {
    // Candidate 1 changed a, candidate 2 changed b, each best on an example of its own.
    const one = addCandidate(search.pool, { candidate: { a: 'A1', b: 'B' }, hash: 'one', parents: [0], subscores: [1, 0.5, 0.5], metricCallsAtDiscovery: 10 });
    const two = addCandidate(one.pool, { candidate: { a: 'A', b: 'B2' }, hash: 'two', parents: [0], subscores: [0.5, 1, 0.5], metricCallsAtDiscovery: 20 });
    search = { ...search, pool: two.pool, step: 2, merges: { ...search.merges, due: true } };
  }
  let ledger = start.ledger;
  const proposals: Record<string, Proposal> = {};
  (row.inFlight ?? []).forEach((held, i) => {
    const made = inFlight(search.step + i + 1, held, ledger);
    proposals[made.p.id] = made.p;
    ledger = made.ledger;
  });
  search = { ...search, step: search.step + (row.inFlight?.length ?? 0) };
  return { ...start, search, progress: seeded.progress, ledger, proposals, parentFirst: row.parentFirst ?? false, parentsAsked: [], ...(row.stopped ? { stopReason: 'maxMetricCalls' } : {}) };
}

function moment(schedule: PlannerSettings['schedule'], more: Partial<LaunchMoment> & { spendLastCalls?: boolean } = {}): LaunchMoment {
  const { spendLastCalls, ...rest } = more;
  return { settings: { ...SETTINGS, schedule, ...(spendLastCalls ? { spendLastCalls } : {}) }, table: TABLE, limits: {}, afterVerdict: false, ...rest };
}

/** A row's answer in short: each start as `<id>+` or `<id>?` (with `:owes<n>` for a valset owed), and a stop. */
function answer(row: RunRow, shape: LaunchShape, at: LaunchMoment): string {
  const next = nextLaunches(run(row), shape, at);
  if (!next) return 'nothing';
  const starts = next.starts.map(({ launch, optimizerAsksParent }) => `${launch.proposal.id}${optimizerAsksParent ? '?' : '+'}${launch.proposal.valsetOwed ? `:owes${launch.proposal.valsetOwed}` : ''}`);
  return `[${starts.join(' ')}]${next.update.stopReason ? ` stop ${next.update.stopReason}` : ''}`;
}

const BATCHED = { kind: 'batched' } as const;
const ASYNC = SETTINGS.schedule;
const async = (inFlight: number, heldSlot: 'keep' | 'free' | 'free-early' = 'keep'): LaunchShape => ({ kind: 'async', inFlight, heldSlot });
const batched = (parents: number, perParent: number): LaunchShape => ({ kind: 'batched', parents, perParent });

describe('the launch rules', () => {
  const table: Array<[string, RunRow, LaunchShape, LaunchMoment, string]> = [
    // Batched: the next P x N step, as many tasks as the ledger grants; each proposal gets its proposer.
    ['a 2x2 step', {}, batched(2, 2), moment(BATCHED), '[p1-0+ p1-1+ p1-2+ p1-3+]'],
    ['a 1x3 step: the shape, not the config, says N', {}, batched(1, 3), moment(BATCHED), '[p1-0+ p1-1+ p1-2+]'],
    ['a step narrowed to the two reservations 17 calls pay', { budget: 20 }, batched(2, 2), moment(BATCHED), '[p1-0+ p1-1+]'],
    ['a step narrowed by the calls a resumed run holds', {}, batched(2, 2), moment(BATCHED, { limits: { heldCalls: 80 } }), '[p1-0+ p1-1+]'],
    ['no step the budget can pay: the run stops', { budget: 9 }, batched(2, 2), moment(BATCHED), '[] stop maxMetricCalls'],
    ['a stopped run starts nothing', { stopped: true }, batched(2, 2), moment(BATCHED), 'nothing'],
    ["batched, parent-first: the step's parent evaluations are the optimizer's to ask for", { parentFirst: true }, batched(1, 2), moment(BATCHED), '[p1-0? p1-1?]'],
    // Async: one proposal of its own number at a time, until K are in flight.
    ['async 4 from idle, parent-first', { parentFirst: true }, async(4), moment(ASYNC), '[p1-0? p2-0? p3-0? p4-0?]'],
    ['async 4 from idle, a replaced proposer (every proposal spawned)', {}, async(4), moment(ASYNC), '[p1-0+ p2-0+ p3-0+ p4-0+]'],
    ['async 4 with 3 in flight: one place', { parentFirst: true, inFlight: [false, false, false] }, async(4), moment(ASYNC), '[p4-0?]'],
    ['async 2 with 3 in flight (the shape narrowed): none', { parentFirst: true, inFlight: [false, false, false] }, async(2), moment(ASYNC), '[]'],
    ['async 6 with 3 in flight (the shape widened): three', { parentFirst: true, inFlight: [false, false, false] }, async(6), moment(ASYNC), '[p4-0? p5-0? p6-0?]'],
    ['async: the budget pays two of four places', { budget: 20 }, async(4), moment(ASYNC), '[p1-0+ p2-0+]'],
    ['async: nothing in flight and nothing paid: the run stops', { budget: 9 }, async(4), moment(ASYNC), '[] stop maxMetricCalls'],
    ['async: something in flight and nothing paid: no stop yet', { budget: 12, inFlight: [false] }, async(4), moment(ASYNC), '[]'],
    // The held-slot rule: a child held in the launch-order wait keeps its place, or gives it up.
    ["'keep': a held child keeps its place", { inFlight: [false, true, true, false] }, async(4, 'keep'), moment(ASYNC), '[]'],
    ["'free': two held children free two places", { inFlight: [false, true, true, false] }, async(4, 'free'), moment(ASYNC), '[p5-0+ p6-0+]'],
    ["'free': at most twice K in flight", { inFlight: [false, true, true, true, true, true, true] }, async(4, 'free'), moment(ASYNC), '[p8-0+]'],
    ["after a verdict with 'keep': nothing", { inFlight: [false, true] }, async(4, 'keep'), moment(ASYNC, { afterVerdict: true }), 'nothing'],
    ["after a verdict with 'free': the freed place is taken", { inFlight: [false, true, false, false] }, async(4, 'free'), moment(ASYNC, { afterVerdict: true }), '[p5-0+]'],
    ["'free-early' is 'free' while the calls left pay many generations", { budget: 100000, inFlight: [false, true, false, false] }, async(4, 'free-early'), moment(ASYNC), '[p5-0+]'],
    ["'free-early' is 'keep' near the budget's end (97 calls: 13 proposals of 7, under 16 generations)", { inFlight: [false, true, false, false] }, async(4, 'free-early'), moment(ASYNC), '[]'],
    // The budget's last calls: once no proposal can be paid in full, one owing its valset.
    ['last calls: a proposal that owes its valset', { budget: 7 }, async(4), moment(ASYNC, { spendLastCalls: true }), '[p1-0+:owes3]'],
    ['last calls, off: the run stops', { budget: 7 }, async(4), moment(ASYNC), '[] stop maxMetricCalls'],
    // A merge due takes the launch; its proposer is spawned even parent-first (a merge has no parent evaluation).
    ['a merge due, async parent-first', { mergeDue: true, parentFirst: true }, async(2), moment(ASYNC), '[merge-3+ p4-0?]'],
    ['a merge due, batched', { mergeDue: true }, batched(2, 2), moment(BATCHED), '[merge-3+]'],
  ];

  it.each(table)('%s', (_, row, shape, at, expected) => {
    expect(answer(row, shape, at)).toBe(expected);
  });

  it('records what it launched: records, ledger, step, and the parents the optimizer asks for', () => {
    const before = run({ parentFirst: true, inFlight: [false] });
    const next = nextLaunches(before, async(3), moment(ASYNC));
    expect(next).not.toBeNull();
    const { update, events, starts, budget } = next as NonNullable<typeof next>;
    expect(starts.map((s) => s.launch.proposal.id)).toEqual(['p2-0', 'p3-0']);
    expect(update.search?.step).toBe(3);
    expect(update.ledger?.reservedCalls).toBe(before.ledger.reservedCalls + 14);
    expect(update.parentsAsked?.map((l) => l.proposal.id)).toEqual(['p2-0', 'p3-0']);
    expect(starts.map((s) => s.launch)).toEqual(update.parentsAsked);
    expect(events.map((e) => e.type)).toEqual(['proposal.started', 'candidate.selected', 'minibatch.sampled', 'proposal.started', 'candidate.selected', 'minibatch.sampled']);
    expect(budget).toEqual({ type: 'budget.updated', metricCalls: SEED_CALLS, reserved: 21, costUsd: 0 });
    // The run handed in is left as it was.
    expect(Object.keys(before.proposals)).toEqual(['p1-0']);
    expect(before.parentsAsked).toEqual([]);
  });

  it('a batched step announces its start first, and no budget when nothing started', () => {
    const step = nextLaunches(run({}), batched(1, 2), moment(BATCHED));
    expect(step?.events[0]).toEqual({ type: 'step.started', step: 1, tasks: 2 });
    expect(step?.update.stepIds).toEqual(['p1-0', 'p1-1']);
    const none = nextLaunches(run({ budget: 9 }), batched(1, 2), moment(BATCHED));
    expect([none?.starts.length, none?.budget, none?.events.length]).toEqual([0, undefined, 0]);
  });

  it("gives each proposal's parent evaluation its own request id: a step's tasks apart, every one above the optimizer's own (the seed's -1)", () => {
    const ids = [1, 2].flatMap((step) => [0, 1, 2].map((task) => parentRequestId({ step, task })));
    expect(new Set(ids).size).toBe(6);
    expect(Math.min(...ids)).toBeGreaterThan(0);
    expect(() => parentRequestId({ step: 1, task: 65_536 })).toThrow(RangeError);
  });
});
