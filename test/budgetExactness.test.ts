// A run never calls adapter.evaluate more than maxMetricCalls times, whatever the schedule,
// the latencies and the failures, and reports exactly the calls it made.
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { optimize } from '../src/index.js';
import { runOnSimulatedClock } from '../src/clock.js';
import { Rng } from '../src/gepa/core/rng.js';
import type { Schedule } from '../src/types.js';
import { hashUnit, KEYWORDS, toyExamples, toyTask } from './support/toyTask.js';

const schedules: Schedule[] = [
  { kind: 'batched' },
  { kind: 'batched', parents: 2, perParent: 2 },
  { kind: 'batched', parents: 4, perParent: 4 },
  { kind: 'async', inFlight: 4 },
  { kind: 'async', inFlight: 16 },
];

describe('exact metric-call budget', () => {
  it('is never exceeded under random latencies and random failures', async () => {
    const rng = new Rng(7);
    for (let trial = 0; trial < 20; trial++) {
      const schedule = schedules[trial % schedules.length] as Schedule;
      const clock = new SimulatedClock();
      const task = toyTask({
        clock,
        evalMs: (c, e) => 5 + Math.floor(40 * hashUnit(`${trial}|${c.instructions}|${e.id}`)),
        reflectMs: (p) => 50 + Math.floor(100 * hashUnit(`${trial}|${p}`)),
        throwsOn: (c, e) => hashUnit(`fail|${trial}|${c.instructions}|${e.id}`) < 0.1,
      });
      const valset = toyExamples('v', KEYWORDS.slice(0, 8));
      const maxMetricCalls = 8 + rng.int(300);
      const result = await runOnSimulatedClock(
        clock,
        optimize({
          seedCandidate: { instructions: 'Answer.' },
          trainset: toyExamples('t', KEYWORDS),
          valset,
          adapter: task.adapter,
          reflectionLm: task.reflectionLm,
          schedule,
          workers: 1 + rng.int(12),
          maxMetricCalls,
          seed: trial,
          clock,
        }),
      );
      expect(task.evaluateCalls, `trial ${trial}`).toBeLessThanOrEqual(maxMetricCalls);
      expect(result.metricCalls, `trial ${trial}`).toBe(task.evaluateCalls);
      expect(result.stopReason).toBe('maxMetricCalls');
      // It stops only when the rest cannot pay for one more worst-case proposal (2b + V).
      expect(maxMetricCalls - result.metricCalls, `trial ${trial}`).toBeLessThan(2 * 3 + valset.length);
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
