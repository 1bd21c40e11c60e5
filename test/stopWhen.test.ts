// stopWhen in a run: a user stopper is asked once per fold with what the run looks like, its
// string (or 'stopWhen' for true) is the result's stopReason in the batched and the async
// schedule, the work in flight finishes (a drain), a throwing stopper ends the run with 'error'
// and keeps the result; the built-ins in a run; and optimize() refusing options it does not know.
import { describe, expect } from 'vitest';
import { ConfigError, optimize, stoppers, type StopView } from '../src/index.js';
import { prepareRun } from '../src/run/prepareRun.js';
import { test } from './support/toyRun.js';
import { failedRun } from './support/failedRun.js';
import { stopText } from '../src/report/runWording.js';

const STOPPED_EARLY = /^stopped before it finished/;

describe('a user stopper', () => {
  test('is asked after the seed and after each batched step, with the run as it stands; its string is the stopReason', async ({ toyRun }) => {
    const views: StopView[] = [];
    const { result, valset } = await toyRun({
      stopWhen: (view) => {
        views.push(view);
        return view.candidates >= 3 && 'three candidates';
      },
    });
    expect(result.stopReason).toBe('three candidates');
    // 1 x 1 steps add at most one candidate each: it stopped at the first fold that reached three.
    expect(result.candidates).toHaveLength(3);
    // Once per fold: the seed's, then one per step (a step is one proposal here).
    expect(views).toHaveLength(1 + result.proposals.length);
    expect(views[0]).toEqual({ metricCalls: valset.length, reflectionCalls: 0, proposals: 0, candidates: 1, bestScore: result.valScores[0], elapsedMs: views[0]?.elapsedMs, costUsd: 0, reflectionCostUsd: 0, stepsWithoutImprovement: 0 });
    expect(views[0]?.elapsedMs).toBeGreaterThan(0);
    // The last view is the result: nothing was in flight after the last step.
    const last = views.at(-1) as StopView;
    expect(last).toMatchObject({ metricCalls: result.metricCalls, reflectionCalls: result.reflectionCalls, proposals: result.proposals.length, candidates: 3, bestScore: result.bestScore, costUsd: result.costUsd });
    expect(views.every((v) => Object.isFrozen(v))).toBe(true);
    // It is a stop condition, not a budget: the run stopped far below the default 300 calls.
    expect(result.metricCalls).toBeLessThan(300);
  });

  test('true stops the run with stopReason \'stopWhen\'; alone it is a stop condition', async ({ toyRun }) => {
    const { result } = await toyRun({ maxMetricCalls: undefined, stopWhen: (view) => view.proposals >= 2 });
    expect(result.stopReason).toBe('stopWhen');
    expect(result.proposals).toHaveLength(2);
  });

  test('async: its string is the stopReason, and the proposals in flight finish and are folded (a drain)', async ({ toyRun }) => {
    let proposalsAtStop = -1;
    const { result } = await toyRun({
      schedule: { kind: 'async', inFlight: 4 },
      maxMetricCalls: 1_000,
      stopWhen: (view) => {
        if (view.proposals < 5) return false;
        proposalsAtStop = view.proposals;
        return 'five proposals';
      },
    });
    expect(result.stopReason).toBe('five proposals');
    expect(proposalsAtStop).toBe(5);
    // Three proposals were in flight when the fifth was folded: they finished, and none was cut short.
    expect(result.proposals.length - proposalsAtStop).toBe(3);
    expect(result.proposals.filter((p) => STOPPED_EARLY.test(p.reason))).toEqual([]);
  });

  test('batched P x N: the stop comes after the step, whose every proposal is folded', async ({ toyRun }) => {
    const { result } = await toyRun({ schedule: { kind: 'batched', parents: 2, perParent: 2 }, stopWhen: (view) => view.proposals >= 1 && 'after the first step' });
    expect(result.stopReason).toBe('after the first step');
    expect(result.proposals).toHaveLength(4);
    expect(result.proposals.filter((p) => STOPPED_EARLY.test(p.reason))).toEqual([]);
  });

  test('one that throws fails the run (RunFailedError) naming it, and the result so far is kept', async ({ toyRun }) => {
    function quotaCheck(view: StopView): boolean {
      if (view.proposals >= 3) throw new Error('quota service unreachable');
      return false;
    }
    const { result } = await failedRun(toyRun({ stopWhen: [stoppers.maxCandidates(100), quotaCheck] }));
    expect(result.error).toBe('stopWhen[1] (quotaCheck) threw: quota service unreachable');
    expect(result.proposals).toHaveLength(3);
    expect(result.candidates.length).toBeGreaterThan(1);
    expect(result.bestScore).toBe(Math.max(...result.valScores));
  });

  test('the options are asked before it: targetScore wins a fold both reach', async ({ toyRun }) => {
    const { result } = await toyRun({ targetScore: 0, stopWhen: () => 'mine' });
    expect(result.stopReason).toBe('targetScore');
    expect(result.candidates).toHaveLength(1);
  });
});

describe('the built-in stoppers in a run', () => {
  test('maxProposals stops after exactly that many proposals', async ({ toyRun }) => {
    const { result } = await toyRun({ maxMetricCalls: undefined, stopWhen: stoppers.maxProposals(4) });
    expect(result.stopReason).toBe('maxProposals');
    expect(result.proposals).toHaveLength(4);
  });

  test('maxMetricCalls is a stop condition: the run stops at the first fold that reaches it; the option remains the budget', async ({ toyRun }) => {
    const { result } = await toyRun({ maxMetricCalls: 300, stopWhen: stoppers.maxMetricCalls(40) });
    expect(result.stopReason).toBe('maxMetricCalls');
    // The result names the stopper, so a report tells it from the budget running out.
    expect(result.stoppedBy).toBe('maxMetricCalls(40)');
    const { result: budget } = await toyRun({ maxMetricCalls: 40 });
    expect([budget.stopReason, budget.stoppedBy]).toEqual(['maxMetricCalls', undefined]);
    expect([stopText(result.stopReason, result.stoppedBy), stopText(budget.stopReason, budget.stoppedBy)]).toEqual(['stopped by maxMetricCalls (the stopper maxMetricCalls(40))', 'stopped by maxMetricCalls']);
    expect(result.metricCalls).toBeGreaterThanOrEqual(40);
    // One 1 x 1 step costs at most 2 x 3 + 6 calls: the fold before had fewer than 40.
    expect(result.metricCalls).toBeLessThan(40 + 12);
  });

  test('any stops with the first member that stops; all waits for every member', async ({ toyRun }) => {
    const either = await toyRun({ stopWhen: stoppers.any(stoppers.maxCandidates(50), stoppers.maxProposals(2)) });
    expect([either.result.stopReason, either.result.proposals.length]).toEqual(['maxProposals', 2]);
    const both = await toyRun({ stopWhen: stoppers.all(stoppers.maxCandidates(3), stoppers.maxProposals(2)) });
    expect(both.result.stopReason).toBe('maxCandidates and maxProposals');
    expect(both.result.candidates).toHaveLength(3);
    expect(both.result.proposals.length).toBeGreaterThanOrEqual(2);
  });

  test('timeout stops at the first fold past it, on the run\'s clock, after the work in flight (timeoutMs stops at once)', async ({ toyRun }) => {
    const { result } = await toyRun({ maxMetricCalls: undefined, schedule: { kind: 'async', inFlight: 3 }, stopWhen: stoppers.timeout(2_000) });
    expect(result.stopReason).toBe('timeout');
    expect(result.elapsedMs).toBeGreaterThanOrEqual(2_000);
    expect(result.proposals.filter((p) => STOPPED_EARLY.test(p.reason))).toEqual([]);
    const atOnce = await toyRun({ maxMetricCalls: undefined, schedule: { kind: 'async', inFlight: 3 }, timeoutMs: 2_000 });
    expect([atOnce.result.stopReason, atOnce.result.elapsedMs]).toEqual(['timeout', 2_000]);
  });

  test('signal drains where the signal option aborts', async ({ toyRun }) => {
    const controller = new AbortController();
    const { result } = await toyRun({
      schedule: { kind: 'async', inFlight: 3 },
      stopWhen: stoppers.signal(controller.signal),
      onEvent: (event) => {
        if (event.type === 'candidate.accepted') controller.abort();
      },
    });
    expect(result.stopReason).toBe('signal');
    expect(result.proposals.filter((p) => STOPPED_EARLY.test(p.reason))).toEqual([]);
  });
});

describe('what optimize() takes', () => {
  test('stopWhen must be functions; an empty list is no stop condition', async ({ toyRun }) => {
    await expect(toyRun({ stopWhen: 'maxProposals' as never })).rejects.toThrow(/stopWhen: must be a function/);
    await expect(toyRun({ maxMetricCalls: undefined, stopWhen: [] })).rejects.toThrow(/at least one stop condition is required: .*stopWhen/);
  });

  test('an option it does not know is refused, with the name it probably meant', async ({ toyRun }) => {
    const refused = toyRun({ maxMetricCals: 50, stopwhen: () => true, frobnicate: 1 } as never);
    await expect(refused).rejects.toThrow(ConfigError);
    await expect(refused).rejects.toThrow(
      'invalid optimize config: maxMetricCals: unknown option (did you mean "maxMetricCalls"?); stopwhen: unknown option (did you mean "stopWhen"?); frobnicate: unknown option (check its spelling)',
    );
    // An option left undefined (a spread config, say) is not a mistake.
    const { result } = await toyRun({ maxMetricCalls: 30, ...({ someOption: undefined } as object) });
    expect(result.metricCalls).toBeLessThanOrEqual(30);
  });

  test('a prepared run passes as it is', async () => {
    const prepared = prepareRun({ seedCandidate: { a: 'x' }, trainset: [1], adapter: { evaluate: async () => ({ score: 1 }) }, reflectionLm: async () => '```\ny\n```', maxMetricCalls: 5 });
    const result = await optimize(prepared);
    expect(result.stopReason).toBe('perfectScore');
  });
});
