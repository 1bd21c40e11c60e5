// A run never calls adapter.evaluate more than maxMetricCalls times, whatever the schedule,
// the latencies and the failures, and reports exactly the calls it made.
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { optimize } from '../src/index.js';
import { Rng } from '../src/gepa/core/rng.js';
import type { Schedule, ValsetPolicy } from '../src/settingValues.js';
import { test, type ToyRun, type ToyRunOptions } from './support/toyRun.js';
import { KEYWORDS, toyExamples, toyTask } from './support/toyTask.js';

const schedules: Schedule[] = [
  { kind: 'batched' },
  { kind: 'batched', parents: 2, perParent: 2 },
  { kind: 'batched', parents: 4, perParent: 4 },
  { kind: 'async', inFlight: 4 },
  { kind: 'async', inFlight: 16 },
  { kind: 'async', inFlight: 8, rebase: 'off' },
];

/** The async mechanisms, all on: rebasing (2b more calls reserved per rebase) and its waits, in-flight parent weights, a valset race. */
const mechanisms: Array<{ schedule: Schedule; valsetPolicy: ValsetPolicy }> = [
  { schedule: { kind: 'async', inFlight: 8, rebase: 'best', parentWeighting: 'in-flight' }, valsetPolicy: { kind: 'race', chunk: 2, margin: 0 } },
  { schedule: { kind: 'async', inFlight: 4, rebase: 'newest-descendant', rebaseGate: 'whole-minibatch' }, valsetPolicy: 'full' },
  { schedule: { kind: 'async', inFlight: 16, rebase: 'best-descendant', parentWeighting: 'in-flight' }, valsetPolicy: { kind: 'race', chunk: 3, margin: 1 } },
  { schedule: { kind: 'async', inFlight: 4, rebase: 'pool-best' }, valsetPolicy: 'full' },
  { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseWait: 'ahead-in-flight' }, valsetPolicy: 'full' },
  { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseWait: 'none' }, valsetPolicy: { kind: 'race', chunk: 2, margin: 0 } },
  { schedule: { kind: 'async', inFlight: 8, rebase: 'best', speculate: 'rebase-gate', heldSlot: 'free' }, valsetPolicy: 'full' },
  { schedule: { kind: 'async', inFlight: 4, rebase: 'best', speculate: 'rebase-gate' }, valsetPolicy: { kind: 'race', chunk: 2, margin: 0 } },
  { schedule: { kind: 'async', inFlight: 4, rebase: 'best', speculate: 'rebase-gate', heldSlot: 'free-early' }, valsetPolicy: 'full' },
  { schedule: { kind: 'batched', parents: 2, perParent: 2 }, valsetPolicy: { kind: 'race', chunk: 2, margin: 0 } },
];

/**
 * One trial: the toy task with 10% of its calls failing and random latencies. The run calls the
 * adapter at most maxMetricCalls times, reports exactly the calls it made, and stops only when the
 * rest cannot pay for one more worst-case proposal (2b + V; a rebase reserves its 2b more only
 * when it is decided).
 */
async function expectExactBudget(toyRun: (options: ToyRunOptions) => Promise<ToyRun>, trial: number, salt: string, options: ToyRunOptions & { maxMetricCalls: number }) {
  const { result, task, valset } = await toyRun({
    valsetSize: 8,
    latencySalt: `${salt}${trial}`,
    evalMs: [5, 40],
    reflectMs: [50, 100],
    failureRate: 0.1,
    failureSalt: `${salt}fail|${trial}`,
    seed: trial,
    ...options,
  });
  expect(task.evaluateCalls, `trial ${trial}`).toBeLessThanOrEqual(options.maxMetricCalls);
  expect(result.metricCalls, `trial ${trial}`).toBe(task.evaluateCalls);
  expect(result.stopReason).toBe('maxMetricCalls');
  expect(options.maxMetricCalls - result.metricCalls, `trial ${trial}`).toBeLessThan(2 * 3 + valset.length);
}

describe('exact metric-call budget', () => {
  test('is never exceeded under random latencies and random failures', async ({ toyRun }) => {
    const rng = new Rng(7);
    for (let trial = 0; trial < 20; trial++) {
      const schedule = schedules[trial % schedules.length] as Schedule;
      const maxMetricCalls = 8 + rng.int(300);
      await expectExactBudget(toyRun, trial, '', { schedule, workers: 1 + rng.int(12), maxMetricCalls });
    }
  });

  test("is never exceeded with the reference's sliding minibatches (cheaper, cached parent evaluations)", async ({ toyRun }) => {
    const rng = new Rng(13);
    for (let trial = 0; trial < 8; trial++) {
      const schedule: Schedule = { kind: 'batched', parents: 1 + rng.int(4), perParent: 1 + rng.int(4) };
      const maxMetricCalls = 20 + rng.int(300);
      // The toy task can be solved outright; the budget, not a perfect score, must end these runs.
      await expectExactBudget(toyRun, trial, 's', { schedule, stepMinibatches: 'sliding', skipPerfectScore: false, workers: 1 + rng.int(12), maxMetricCalls });
    }
  });

  test('is never exceeded with every async mechanism on', async ({ toyRun }) => {
    const rng = new Rng(11);
    for (let trial = 0; trial < 16; trial++) {
      const { schedule, valsetPolicy } = mechanisms[trial % mechanisms.length] as (typeof mechanisms)[number];
      const maxMetricCalls = 20 + rng.int(300);
      await expectExactBudget(toyRun, trial, 'm', { schedule, valsetPolicy, workers: 1 + rng.int(12), maxMetricCalls });
    }
  });

  it('refuses a budget that cannot pay for the seed evaluation', async () => {
    const clock = new SimulatedClock();
    const task = toyTask({ clock });
    await expect(
      optimize({
        seedCandidate: { instructions: 'Answer.' },
        trainset: toyExamples('t', KEYWORDS),
        adapter: task.adapter,
        reflectionLm: task.reflectionLm,
        maxMetricCalls: 5,
        clock,
      }),
    ).rejects.toThrow(/maxMetricCalls: 5 cannot pay for evaluating the seed on the valset \(12 examples\)/);
    expect(task.evaluateCalls).toBe(0);
  });
});
