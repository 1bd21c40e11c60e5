// One capacity budget: never more than `workers` metric and reflection calls in flight at once,
// across every proposal and the seed, and the budget is actually used.
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { optimize } from '../src/index.js';
import { runOnSimulatedClock } from '../src/clock.js';
import type { Schedule } from '../src/types.js';
import { hashUnit, KEYWORDS, toyExamples, toyTask } from './support/toyTask.js';

describe('the worker budget', () => {
  const cases: Array<[Schedule, number]> = [
    [{ kind: 'batched', parents: 4, perParent: 4 }, 3],
    [{ kind: 'batched', parents: 8, perParent: 1 }, 7],
    [{ kind: 'async', inFlight: 16 }, 5],
    [{ kind: 'async', inFlight: 2 }, 16],
  ];
  for (const [schedule, workers] of cases) {
    it(`${JSON.stringify(schedule)} on ${workers} workers never runs more than ${workers} calls at once`, async () => {
      const clock = new SimulatedClock();
      const task = toyTask({
        clock,
        evalMs: (c, e) => 1 + Math.floor(50 * hashUnit(`${c.instructions}|${e.id}`)),
        reflectMs: (p) => 20 + Math.floor(200 * hashUnit(p)),
      });
      const result = await runOnSimulatedClock(
        clock,
        optimize({
          seedCandidate: { instructions: 'Answer.' },
          trainset: toyExamples('t', KEYWORDS),
          valset: toyExamples('v', KEYWORDS.slice(0, 10)),
          adapter: task.adapter,
          reflectionLm: task.reflectionLm,
          schedule,
          workers,
          maxMetricCalls: 300,
          clock,
        }),
      );
      expect(task.maxInFlight).toBeLessThanOrEqual(workers);
      // Work was waiting for slots: the cap was reached, not merely respected.
      const wide = schedule.kind === 'async' ? schedule.inFlight * 3 : (schedule.parents ?? 1) * (schedule.perParent ?? 1) * 3;
      if (wide > workers) expect(task.maxInFlight).toBe(workers);
      expect(result.workerUtilization).toBeGreaterThan(0);
      expect(result.workerUtilization).toBeLessThanOrEqual(1);
    });
  }
});
