// gepa's callbacks (OptimizeConfig.callbacks): a batched run with merges calls every one of
// gepa's 22 methods, with payloads that agree with the result; an async run has one iteration per
// proposal; a callback that throws (or rejects) is reported once per callback and method as a
// `warning` event naming both, and the run's result is the same as without it; with failFast it
// fails the run (RunFailedError, the callback's error its cause).
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { optimize, type GepaCallbacks, type OptimizeResult, type RunEvent, type Schedule } from '../src/index.js';
import { runOnSimulatedClock, steppingClock } from '../src/clock.js';
import { mergeExamples, mergeTask } from './support/mergeTask.js';
import { failedRun } from './support/failedRun.js';

type Method = keyof GepaCallbacks;
type Calls = { [M in Method]: Array<Parameters<GepaCallbacks[M]>[0]> };

const METHODS: Method[] = [
  'onOptimizationStart', 'onOptimizationEnd', 'onIterationStart', 'onIterationEnd', 'onCandidateSelected', 'onMinibatchSampled',
  'onEvaluationStart', 'onEvaluationEnd', 'onEvaluationSkipped', 'onValsetEvaluated', 'onReflectiveDatasetBuilt', 'onProposalStart',
  'onProposalEnd', 'onCandidateAccepted', 'onCandidateRejected', 'onMergeAttempted', 'onMergeAccepted', 'onMergeRejected',
  'onParetoFrontUpdated', 'onStateSaved', 'onBudgetUpdated', 'onError',
];

/** A callback object that records every call, by method. */
function recorder(): { callbacks: Partial<GepaCallbacks>; calls: Calls } {
  const calls = Object.fromEntries(METHODS.map((m) => [m, []])) as unknown as Calls;
  const callbacks = Object.fromEntries(METHODS.map((m) => [m, (event: never) => void (calls[m] as unknown[]).push(event)])) as Partial<GepaCallbacks>;
  return { callbacks, calls };
}

interface RunOptions {
  schedule: Schedule;
  seed: number;
  callbacks?: Array<Partial<GepaCallbacks>>;
}

/**
 * The merge task with crowded candidates penalized (so some merges and children lose) and one
 * metric call that throws (an `error` event the run goes on after).
 */
async function mergeRun({ schedule, seed, callbacks }: RunOptions): Promise<{ result: OptimizeResult; events: RunEvent[] }> {
  const clock = steppingClock(new SimulatedClock());
  const task = mergeTask(clock, { crowded: 2, throwsOn: { example: 'e1', word: 'beta' } });
  const events: RunEvent[] = [];
  const result = await runOnSimulatedClock(
    clock,
    optimize({
      seedCandidate: { content: 'Say:', format: 'Use:' },
      trainset: mergeExamples,
      adapter: task.adapter,
      reflectionLm: task.reflectionLm,
      maxMetricCalls: 300,
      // Off: the checks count minibatches of the full size, 3 (spendLastCalls cuts the last proposals' ones).
      spendLastCalls: false,
      schedule,
      merge: { maxMerges: 5 },
      seed,
      clock,
      onEvent: (e) => events.push(e),
      ...(callbacks ? { callbacks } : {}),
    }),
  );
  return { result, events };
}

const BATCHED: RunOptions = { schedule: { kind: 'batched', parents: 1, perParent: 2 }, seed: 7 };
const ASYNC: RunOptions = { schedule: { kind: 'async', inFlight: 3 }, seed: 3 };

describe('gepa callbacks', () => {
  it('a batched run with merges calls every method, with payloads that agree with the result', async () => {
    const { callbacks, calls } = recorder();
    const { result } = await mergeRun({ ...BATCHED, callbacks: [callbacks] });
    expect(METHODS.filter((m) => calls[m].length === 0)).toEqual([]);

    expect(calls.onOptimizationStart).toEqual([expect.objectContaining({ seedCandidate: { content: 'Say:', format: 'Use:' }, trainsetSize: 6, valsetSize: 6 })]);
    expect(calls.onOptimizationStart[0]?.config).toMatchObject({ seed: 7, maxMetricCalls: 300, maxMerges: 5 });
    const end = calls.onOptimizationEnd;
    expect(end).toHaveLength(1);
    expect(end[0]).toMatchObject({ bestCandidateIdx: result.bestIndex, totalMetricCalls: result.metricCalls, totalIterations: calls.onIterationStart.length });
    expect(end[0]?.finalState).toBe(result);

    // One iteration per step: started and ended once each, accepted when a candidate of the step joined.
    const steps = [...new Set(result.proposals.map((p) => p.step))];
    expect(calls.onIterationStart.map((e) => e.iteration)).toEqual(steps);
    expect(calls.onStateSaved).toEqual(steps.map((iteration) => ({ iteration, runDir: null })));
    expect(calls.onIterationEnd.map((e) => [e.iteration, e.proposalAccepted])).toEqual(steps.map((s) => [s, result.proposals.some((p) => p.step === s && p.outcome === 'accepted')]));
    expect(calls.onIterationEnd.at(-1)?.state.candidates).toEqual(result.candidates);

    // The seed at iteration 0, then every candidate that joined, with its valset scores.
    expect(calls.onValsetEvaluated.map((e) => e.candidateIdx)).toEqual(result.candidates.map((_, i) => i));
    for (const e of calls.onValsetEvaluated) {
      expect(e.candidate).toEqual(result.candidates[e.candidateIdx]);
      expect(e.averageScore).toBe(result.valScores[e.candidateIdx]);
      expect(Object.values(e.scoresByValId)).toEqual(result.valSubscores[e.candidateIdx]);
      expect(e.parentIds).toEqual(result.parents[e.candidateIdx]);
      expect(e.totalValsetSize).toBe(6);
    }
    expect(calls.onValsetEvaluated[0]).toMatchObject({ iteration: 0, isBestProgram: true });

    const reflective = result.proposals.filter((p) => p.kind === 'reflective');
    const merges = result.proposals.filter((p) => p.kind === 'merge');
    const accepted = (ps: typeof reflective) => ps.filter((p) => p.outcome === 'accepted');
    const rejected = (ps: typeof reflective) => ps.filter((p) => p.outcome === 'rejected');
    // Every addition is a candidate accepted (a merge's also a merge accepted), with the child's minibatch sum.
    expect(calls.onCandidateAccepted.map((e) => [e.iteration, e.newCandidateIdx, e.newScore, e.parentIds])).toEqual(
      accepted(result.proposals).map((p) => [p.step, p.candidateIndex, p.childMinibatchSum, p.parents]),
    );
    expect(calls.onMergeAccepted.map((e) => [e.iteration, e.newCandidateIdx, e.parentIds])).toEqual(accepted(merges).map((p) => [p.step, p.candidateIndex, p.parents]));
    expect(calls.onMergeRejected.map((e) => [e.iteration, e.parentIds, e.reason])).toEqual(rejected(merges).map((p) => [p.step, p.parents, p.reason]));
    expect(calls.onMergeAttempted.map((e) => e.iteration)).toEqual(merges.filter((p) => p.childMinibatchSum !== undefined).map((p) => p.step));
    for (const e of calls.onMergeAttempted) {
      // Each component of the merged child comes from one of its two parents.
      const [a, b] = e.parentIds.map((i) => result.candidates[i]);
      for (const name of ['content', 'format']) expect([a?.[name], b?.[name]]).toContain(e.mergedCandidate[name]);
    }
    expect(calls.onCandidateRejected.map((e) => [e.iteration, e.oldScore, e.newScore, e.reason])).toEqual(
      rejected(reflective).map((p) => [p.step, p.parentMinibatchSum, p.childMinibatchSum, p.reason]),
    );

    // Each reflective proposal's parent and minibatch; parent evaluations capture traces.
    expect(calls.onCandidateSelected.map((e) => [e.iteration, e.candidateIdx])).toEqual(reflective.map((p) => [p.step, p.rebasedFrom ?? p.parents[0]]));
    for (const e of calls.onCandidateSelected) expect(e.candidate).toEqual(result.candidates[e.candidateIdx]);
    for (const e of calls.onMinibatchSampled) {
      expect(e.trainsetSize).toBe(6);
      expect(e.minibatchIds).toHaveLength(3);
      for (const id of e.minibatchIds) expect(id).toBeLessThan(6);
    }
    const parentStarts = calls.onEvaluationStart.filter((e) => e.captureTraces);
    expect(parentStarts).toHaveLength(reflective.length);
    for (const e of parentStarts) {
      expect(e.inputs).toHaveLength(3);
      expect(e.isSeedCandidate).toBe(e.candidateIdx === 0);
    }
    const parentEnds = calls.onEvaluationEnd.filter((e) => e.candidateIdx !== null);
    for (const e of parentEnds) {
      expect(e.hasTrajectories).toBe(true);
      expect(e.scores).toHaveLength(3);
      expect(e.outputs).toHaveLength(3);
    }
    expect(calls.onEvaluationSkipped.map((e) => [e.iteration, e.reason])).toEqual(
      reflective.filter((p) => p.outcome === 'skipped' && p.parentMinibatchSum === undefined && p.reason.includes('parent')).map((p) => [p.step, p.reason]),
    );

    // Reflection: the dataset per component, the prompt per component, the new text.
    for (const e of calls.onReflectiveDatasetBuilt) expect(Object.keys(e.dataset)).toEqual(e.components);
    expect(calls.onProposalStart).toHaveLength(calls.onReflectiveDatasetBuilt.length);
    for (const e of calls.onProposalEnd) {
      expect(Object.keys(e.prompts)).toHaveLength(1);
      expect(Object.keys(e.newInstructions).every((name) => name in e.prompts)).toBe(true);
    }

    // The front after the last update holds the best candidate; displaced candidates were on the one before.
    expect(calls.onParetoFrontUpdated.at(-1)?.newFront).toContain(result.bestIndex);
    // Budget: deltas add up to the calls spent, the remaining budget counts down to what is left.
    const budget = calls.onBudgetUpdated;
    expect(budget.reduce((n, e) => n + e.metricCallsDelta, 0)).toBe(budget.at(-1)?.metricCallsUsed);
    expect(budget.at(-1)).toMatchObject({ metricCallsUsed: result.metricCalls, metricCallsRemaining: 300 - result.metricCalls });
    // The failed metric call: reported, and the run went on.
    expect(calls.onError.length).toBeGreaterThan(0);
    for (const e of calls.onError) {
      expect(e.willContinue).toBe(true);
      expect(e.exception.message).toContain('cannot run e1');
    }
  });

  it('an async run has one iteration per proposal', async () => {
    const { callbacks, calls } = recorder();
    const { result } = await mergeRun({ ...ASYNC, callbacks: [callbacks] });
    const steps = result.proposals.map((p) => p.step);
    expect(new Set(steps).size).toBe(steps.length);
    expect(calls.onIterationStart.map((e) => e.iteration).sort((a, b) => a - b)).toEqual([...steps].sort((a, b) => a - b));
    // Each ends when its proposal is folded, in fold order, accepted when its child joined.
    expect(calls.onIterationEnd.map((e) => [e.iteration, e.proposalAccepted])).toEqual(result.proposals.map((p) => [p.step, p.outcome === 'accepted']));
    expect(calls.onCandidateAccepted.map((e) => e.newCandidateIdx)).toEqual(result.candidates.map((_, i) => i).slice(1));
    expect(calls.onMergeAttempted.length).toBeGreaterThan(0);
    expect(calls.onOptimizationEnd[0]?.totalIterations).toBe(steps.length);
  });

  it("takes a class instance, as gepa's callbacks are written: its methods are called on it", async () => {
    class IterationCounter implements Partial<GepaCallbacks> {
      started = 0;
      onIterationStart(): void {
        this.started++;
      }
    }
    const counter = new IterationCounter();
    const { result } = await mergeRun({ ...BATCHED, callbacks: [counter] });
    expect(counter.started).toBe(new Set(result.proposals.map((p) => p.step)).size);
  });

  it('refuses callbacks that are not objects of functions, naming the field', async () => {
    await expect(mergeRun({ ...BATCHED, callbacks: [{ onIterationEnd: 'log' } as never] })).rejects.toThrow('invalid optimize config: callbacks[0].onIterationEnd: must be a function');
    await expect(mergeRun({ ...BATCHED, callbacks: {} as never })).rejects.toThrow(/callbacks: must be an array/);
  });

  for (const options of [BATCHED, ASYNC]) {
    it(`a callback that throws is reported once per callback and method, as a warning, and changes nothing (${options.schedule.kind})`, async () => {
      const plain = await mergeRun(options);
      const failing: Partial<GepaCallbacks> = {
        onIterationStart: () => {
          throw new Error('boom');
        },
        onBudgetUpdated: () => {
          throw new Error('bust');
        },
        onCandidateAccepted: async () => Promise.reject(new Error('late')),
      };
      const { callbacks, calls } = recorder();
      const withFailing = await mergeRun({ ...options, callbacks: [failing, callbacks] });
      expect(withFailing.result).toEqual(plain.result);
      const reports = withFailing.events.filter((e) => e.type === 'warning' && e.message.startsWith('callbacks['));
      expect(reports.map((e) => (e.type === 'warning' ? e.message : '')).sort()).toEqual([
        'callbacks[0].onBudgetUpdated threw: bust',
        'callbacks[0].onCandidateAccepted threw: late',
        'callbacks[0].onIterationStart threw: boom',
      ]);
      // The callbacks after it still got every call; as in gepa, a failing callback is logged, not an error of the run.
      expect(calls.onIterationStart.length).toBeGreaterThan(1);
      expect(calls.onError.filter((e) => e.exception.message.startsWith('callbacks['))).toEqual([]);
      // Without the failures, the run's own events are the same.
      expect(withFailing.events.filter((e) => !reports.includes(e))).toEqual(plain.events);
    });

    it(`with failFast a callback that throws fails the run: RunFailedError, the callback's error its cause (${options.schedule.kind})`, async () => {
      const boom = new Error('boom');
      const events: RunEvent[] = [];
      const clock = steppingClock(new SimulatedClock());
      const task = mergeTask(clock, {});
      const run = optimize({
        seedCandidate: { content: 'Say:', format: 'Use:' },
        trainset: mergeExamples,
        adapter: task.adapter,
        reflectionLm: task.reflectionLm,
        maxMetricCalls: 300,
        schedule: options.schedule,
        seed: options.seed,
        clock,
        failFast: true,
        onEvent: (e) => events.push(e),
        callbacks: [{ onIterationStart: (e) => { if (e.iteration === 2) throw boom; } }],
      });
      const failed = await failedRun(runOnSimulatedClock(clock, run));
      expect(failed.cause).toBe(boom);
      expect(failed.result.error).toBe('failFast: callbacks[0].onIterationStart threw: boom');
      expect(failed.message).toMatch(/^the run failed: failFast: callbacks\[0\]\.onIterationStart threw: boom\. no call failed \(\d+ made\); best so far: candidate #\d+ \(valset score \d\.\d{3}\)$/);
      expect(events.filter((e) => e.type === 'warning')).toEqual([{ type: 'warning', message: 'callbacks[0].onIterationStart threw: boom' }]);
      // It stopped at once: far from its budget.
      expect(failed.result.metricCalls).toBeLessThan(100);
    });
  }
});
