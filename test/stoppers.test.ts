// The stop rules on their own: each built-in stopper against hand-made views (the exact moment it
// stops, and its reason), the composites, the options as stoppers, and the one stop decision:
// the order it asks them in, once per fold, what a throwing stopper becomes, and how the stops
// that arrive as events combine with a reason already set.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stoppers, type Stopper, type StopView } from '../src/index.js';
import { optionStoppers, stopperName } from '../src/gepa/strategies/stoppers.js';
import { decideStop, finalStopReason, stopView, type ViewedRun } from '../src/gepa/search/stopDecision.js';

const VIEW: StopView = { metricCalls: 0, reflectionCalls: 0, proposals: 0, candidates: 1, bestScore: 0, elapsedMs: 0, costUsd: 0, reflectionCostUsd: 0, stepsWithoutImprovement: 0 };
const view = (over: Partial<StopView>): StopView => ({ ...VIEW, ...over });

const scratch = mkdtempSync(join(tmpdir(), 'gepa-stoppers-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the built-in stoppers', () => {
  // [stopper, the view field it reads, the last value that goes on, the first that stops, its reason]
  it.each([
    [stoppers.timeout(1_000), 'elapsedMs', 999, 1_000, 'timeout'],
    [stoppers.scoreThreshold(0.8), 'bestScore', 0.79, 0.8, 'scoreThreshold'],
    [stoppers.noImprovement(3), 'stepsWithoutImprovement', 2, 3, 'noImprovement'],
    [stoppers.maxCandidates(5), 'candidates', 4, 5, 'maxCandidates'],
    [stoppers.maxMetricCalls(100), 'metricCalls', 99, 100, 'maxMetricCalls'],
    [stoppers.maxCostUsd(2), 'costUsd', 1.99, 2, 'maxCostUsd'],
    [stoppers.maxProposals(7), 'proposals', 6, 7, 'maxProposals'],
  ] as const)('%s stops once %s reaches its limit', (stopper, field, below, at, reason) => {
    expect(stopper(view({ [field]: below }))).toBe(false);
    expect(stopper(view({ [field]: at }))).toBe(reason);
    expect(stopper(view({ [field]: at + 1 }))).toBe(reason);
  });

  it('signal stops once its AbortSignal is aborted', () => {
    const controller = new AbortController();
    const stopper = stoppers.signal(controller.signal);
    expect(stopper(VIEW)).toBe(false);
    controller.abort();
    expect(stopper(VIEW)).toBe('signal');
  });

  it('file stops once the file exists, and leaves it in place', () => {
    const path = join(scratch, 'stop-now');
    const stopper = stoppers.file(path);
    expect(stopper(VIEW)).toBe(false);
    writeFileSync(path, '');
    expect(stopper(VIEW)).toBe('file');
    expect(stopper(VIEW)).toBe('file');
  });

  it('each is named after what it is (errors and the run directory name them so)', () => {
    expect([stoppers.timeout(5), stoppers.maxProposals(3), stoppers.file('/tmp/x'), stoppers.signal(new AbortController().signal)].map((s) => stopperName(s))).toEqual([
      'timeout(5)',
      'maxProposals(3)',
      'file("/tmp/x")',
      'signal',
    ]);
    expect(stopperName(stoppers.any(stoppers.maxCandidates(2), () => false))).toBe('any(maxCandidates(2), anonymous)');
  });
});

describe('the composites', () => {
  const calls = stoppers.maxMetricCalls(10);
  const proposals = stoppers.maxProposals(3);

  it('any stops when one member does, with the first stopping member\'s reason', () => {
    const either = stoppers.any(calls, proposals);
    expect(either(view({ metricCalls: 9, proposals: 2 }))).toBe(false);
    expect(either(view({ metricCalls: 9, proposals: 3 }))).toBe('maxProposals');
    expect(either(view({ metricCalls: 10, proposals: 3 }))).toBe('maxMetricCalls');
    // A member's true is the user's 'stopWhen'.
    expect(stoppers.any(() => true)(VIEW)).toBe('stopWhen');
    expect(stoppers.any()(VIEW)).toBe(false);
  });

  it('all stops only when every member does, with their reasons joined', () => {
    const both = stoppers.all(calls, proposals);
    expect(both(view({ metricCalls: 10, proposals: 2 }))).toBe(false);
    expect(both(view({ metricCalls: 9, proposals: 3 }))).toBe(false);
    expect(both(view({ metricCalls: 10, proposals: 3 }))).toBe('maxMetricCalls and maxProposals');
    expect(stoppers.all()(VIEW)).toBe(false);
  });

  it('nest', () => {
    const rule = stoppers.any(stoppers.all(calls, proposals), stoppers.scoreThreshold(1));
    expect(rule(view({ metricCalls: 10, proposals: 3 }))).toBe('maxMetricCalls and maxProposals');
    expect(rule(view({ bestScore: 1 }))).toBe('scoreThreshold');
    expect(rule(view({ metricCalls: 10 }))).toBe(false);
  });
});

describe('the options as stoppers', () => {
  const first = (goals: Parameters<typeof optionStoppers>[0], v: StopView) => optionStoppers(goals).map((s) => s(v)).find((r) => r !== false) ?? null;

  it('targetScore stops once the best reaches it', () => {
    expect(first({ targetScore: 0.9 }, view({ bestScore: 0.9 }))).toBe('targetScore');
    expect(first({ targetScore: 0.9 }, view({ bestScore: 0.85 }))).toBeNull();
  });

  it('maxStepsWithoutImprovement stops after that many folds without a better best', () => {
    expect(first({ maxStepsWithoutImprovement: 3 }, view({ stepsWithoutImprovement: 3 }))).toBe('maxStepsWithoutImprovement');
    expect(first({ maxStepsWithoutImprovement: 3 }, view({ stepsWithoutImprovement: 2 }))).toBeNull();
  });

  it('a perfect best stops the run only with skipPerfectScore', () => {
    expect(first({ skipPerfectScore: true, perfectScore: 1 }, view({ bestScore: 1 }))).toBe('perfectScore');
    expect(first({ skipPerfectScore: true, perfectScore: 1 }, view({ bestScore: 0.99 }))).toBeNull();
    expect(first({ skipPerfectScore: false, perfectScore: 1 }, view({ bestScore: 1 }))).toBeNull();
  });

  it('in order: targetScore, perfectScore, maxStepsWithoutImprovement', () => {
    expect(first({ targetScore: 1, skipPerfectScore: true, perfectScore: 1, maxStepsWithoutImprovement: 1 }, view({ bestScore: 1, stepsWithoutImprovement: 9 }))).toBe('targetScore');
    expect(first({ skipPerfectScore: true, perfectScore: 1, maxStepsWithoutImprovement: 1 }, view({ bestScore: 1, stepsWithoutImprovement: 9 }))).toBe('perfectScore');
    expect(first({}, view({ bestScore: 1, stepsWithoutImprovement: 1_000 }))).toBeNull();
  });
});

describe('the stop decision', () => {
  /** A run after a fold: 2 candidates, best 0.5, 14 calls, 3 proposals (one of them a skip), $0.25. */
  const run: ViewedRun = {
    search: { pool: { candidates: [{ a: 'x' }, { a: 'y' }] } as never },
    progress: { bestScore: 0.5, stepsWithoutImprovement: 1, reflectionCalls: 2, reflectionCostUsd: 0.1, records: [{}, {}, {}] as never },
    ledger: { spentCalls: 14 },
    spentUsd: 0.25,
  };
  const fold = { kind: 'fold', elapsedMs: 1_234 } as const;

  it('shows the stoppers the run as plain numbers, frozen', () => {
    const seen = stopView(run, 1_234);
    expect(seen).toEqual({ metricCalls: 14, reflectionCalls: 2, proposals: 3, candidates: 2, bestScore: 0.5, elapsedMs: 1_234, costUsd: 0.25, reflectionCostUsd: 0.1, stepsWithoutImprovement: 1 });
    expect(Object.isFrozen(seen)).toBe(true);
  });

  it('asks the options first, then the user\'s stoppers in order, until one stops', () => {
    const asked: string[] = [];
    const spy = (name: string, answer: boolean | string): Stopper => () => (asked.push(name), answer);
    const mine = spy('b', 'mine');
    expect(decideStop(run, fold, { stopWhen: [spy('a', false), mine, spy('c', true)] })).toEqual({ stopReason: 'mine', error: undefined, stoppedBy: stopperName(mine) });
    expect(asked).toEqual(['a', 'b']);
    asked.length = 0;
    expect(decideStop(run, fold, { targetScore: 0.5, stopWhen: [spy('a', true)] }).stopReason).toBe('targetScore');
    expect(asked).toEqual([]);
    expect(decideStop(run, fold, { stopWhen: [spy('a', true)] }).stopReason).toBe('stopWhen');
    expect(decideStop(run, fold, { stopWhen: [spy('a', false), spy('b', '')] }).stopReason).toBeUndefined();
  });

  it('asks nothing once the run is stopping (each stopper is asked once per fold while the run goes on)', () => {
    let asked = 0;
    const counting: Stopper = () => (asked++, true);
    expect(decideStop({ ...run, stopReason: 'stopped' }, fold, { stopWhen: [counting] }).stopReason).toBe('stopped');
    expect(asked).toBe(0);
  });

  it('a stopper that throws, or answers something else than a boolean or a string, stops the run with \'error\' naming it', () => {
    function budgetWatch(): boolean {
      throw new Error('no budget file');
    }
    expect(decideStop(run, fold, { stopWhen: [() => false, budgetWatch] })).toEqual({ stopReason: 'error', error: 'stopWhen[1] (budgetWatch) threw: no budget file' });
    expect(decideStop(run, fold, { stopWhen: [(() => 3) as unknown as Stopper] })).toEqual({ stopReason: 'error', error: 'stopWhen[0] (anonymous) returned 3, not a boolean or a string' });
  });

  it('a drain keeps a reason already set; an abort takes its place', () => {
    const request = (reason: string, graceful: boolean, error?: string) => ({ kind: 'request', reason, graceful, error }) as const;
    expect(decideStop(run, request('stopped', true), {}).stopReason).toBe('stopped');
    expect(decideStop({ ...run, stopReason: 'targetScore' }, request('stopped', true), {}).stopReason).toBe('targetScore');
    expect(decideStop({ ...run, stopReason: 'targetScore' }, request('aborted', false), {}).stopReason).toBe('aborted');
    expect(decideStop(run, request('error', false, 'HTTP 404'), {})).toEqual({ stopReason: 'error', error: 'HTTP 404' });
  });

  it('takes the planner\'s refusal, a failed seed, and names the budget when an async run goes idle', () => {
    expect(decideStop(run, { kind: 'plan', reason: 'maxCostUsd' }, {}).stopReason).toBe('maxCostUsd');
    expect(decideStop(run, { kind: 'plan' }, {}).stopReason).toBeUndefined();
    expect(decideStop(run, { kind: 'plan', reason: 'error', error: 'hooks failed' }, {})).toEqual({ stopReason: 'error', error: 'hooks failed' });
    expect(decideStop(run, { kind: 'seed', error: 'refused', refusedByDollars: true }, {}).stopReason).toBe('maxCostUsd');
    expect(decideStop(run, { kind: 'seed', error: 'all failed', refusedByDollars: false }, {})).toEqual({ stopReason: 'error', error: 'all failed' });
    expect(decideStop(run, { kind: 'idle' }, {}).stopReason).toBe('maxMetricCalls');
    expect(finalStopReason({})).toBe('done');
  });
});
