// Stopping: the caller's AbortSignal and timeoutMs stop at once with what was found; targetScore
// and maxStepsWithoutImprovement stop after the work in flight.
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { optimize } from '../src/index.js';
import { runOnSimulatedClock, steppingClock } from '../src/clock.js';
import { test } from './support/toyRun.js';
import { KEYWORDS, toyExamples, toyTask } from './support/toyTask.js';

function setup() {
  const clock = steppingClock(new SimulatedClock());
  const task = toyTask({ clock, evalMs: () => 10, reflectMs: () => 100 });
  const base = {
    seedCandidate: { instructions: 'Answer.' },
    trainset: toyExamples('t', KEYWORDS),
    valset: toyExamples('v', KEYWORDS.slice(0, 6)),
    adapter: task.adapter,
    reflectionLm: task.reflectionLm,
    workers: 4,
    clock,
  };
  return { clock, task, base };
}

describe('stopping', () => {
  it('abort gives a result with what was found, and aborts the calls in flight', async () => {
    const { clock, task, base } = setup();
    const controller = new AbortController();
    clock.setTimeout(() => controller.abort(), 700);
    const result = await runOnSimulatedClock(clock, optimize({ ...base, maxMetricCalls: 10_000, signal: controller.signal }));
    expect(result.stopReason).toBe('aborted');
    expect(result.elapsedMs).toBe(700);
    expect(result.candidates.length).toBeGreaterThan(1);
    expect(result.proposals.at(-1)?.reason).toBe('stopped before it finished (aborted)');
    // Every call that started has ended by the time the result is out (aborted, not leaked).
    expect(task.calls.every((c) => c.end <= 700)).toBe(true);
  });

  it('a signal aborted before the seed is evaluated rejects with a clear error', async () => {
    const { clock, base } = setup();
    await expect(runOnSimulatedClock(clock, optimize({ ...base, maxMetricCalls: 100, signal: AbortSignal.abort() }))).rejects.toThrow(
      'the run stopped (aborted) before the seed candidate was evaluated',
    );
  });

  it('timeoutMs stops on time, on the injected clock', async () => {
    const { clock, base } = setup();
    const result = await runOnSimulatedClock(clock, optimize({ ...base, timeoutMs: 1_000 }));
    expect(result.stopReason).toBe('timeout');
    expect(result.elapsedMs).toBe(1_000);
  });

  it('targetScore stops once the best valset mean reaches it', async () => {
    const { clock, base } = setup();
    const result = await runOnSimulatedClock(clock, optimize({ ...base, maxMetricCalls: 10_000, targetScore: 0.5 }));
    expect(result.stopReason).toBe('targetScore');
    expect(result.bestScore).toBeGreaterThanOrEqual(0.5);
    // It did not go on: the run before the last fold had not reached it.
    const earlier = result.valScores.slice(0, -1);
    expect(earlier.some((s) => s >= 0.5) && result.valScores.at(-1) !== result.bestScore).toBe(false);
  });

  it('maxStepsWithoutImprovement stops a run that cannot improve', async () => {
    const { clock, base } = setup();
    const result = await runOnSimulatedClock(
      clock,
      optimize({ ...base, reflectionLm: async () => '```\nAnswer.\n```', maxStepsWithoutImprovement: 3 }),
    );
    expect(result.stopReason).toBe('maxStepsWithoutImprovement');
    expect(result.proposals).toHaveLength(3);
  });

  it('a config with no stop condition is refused, naming the rule', async () => {
    const { base } = setup();
    await expect(optimize({ ...base })).rejects.toThrow(/at least one stop condition is required/);
  });
});

describe('stopping at a perfect score', () => {
  test('with skipPerfectScore (the default) the run stops once the best valset mean is perfect', async ({ toyRun }) => {
    const { result } = await toyRun({ maxMetricCalls: 10_000, workers: 4 });
    expect(result.stopReason).toBe('perfectScore');
    expect(result.bestScore).toBe(1);
    // The perfect candidate is the last one found, and no step after its step was started.
    const perfect = result.valScores.indexOf(1);
    expect(perfect).toBe(result.candidates.length - 1);
    const foundIn = result.proposals.find((p) => p.candidateIndex === perfect)?.step;
    expect(foundIn).toBeDefined();
    expect(Math.max(...result.proposals.map((p) => p.step))).toBe(foundIn);
    expect(result.metricCalls).toBeLessThan(300);
  });

  test('without skipPerfectScore, or below perfectScore, the run goes on to its budget', async ({ toyRun }) => {
    const off = await toyRun({ maxMetricCalls: 400, workers: 4, skipPerfectScore: false });
    expect(off.result.bestScore).toBe(1);
    expect(off.result.stopReason).toBe('maxMetricCalls');
    const higher = await toyRun({ maxMetricCalls: 400, workers: 4, perfectScore: 2 });
    expect(higher.result.stopReason).toBe('maxMetricCalls');
  });

  test('an async run stops there too', async ({ toyRun }) => {
    const { result } = await toyRun({ maxMetricCalls: 10_000, workers: 4, schedule: { kind: 'async', inFlight: 3 } });
    expect(result.stopReason).toBe('perfectScore');
    expect(result.bestScore).toBe(1);
  });
});
