// One capacity budget: never more than `workers` metric and reflection calls in flight at once,
// across every proposal and the seed, and the budget is actually used.
import { describe, expect } from 'vitest';
import type { Schedule } from '../src/settingValues.js';
import { test } from './support/toyRun.js';

describe('the worker budget', () => {
  const cases: Array<[Schedule, number]> = [
    [{ kind: 'batched', parents: 4, perParent: 4 }, 3],
    [{ kind: 'batched', parents: 8, perParent: 1 }, 7],
    [{ kind: 'async', inFlight: 16 }, 5],
    [{ kind: 'async', inFlight: 2 }, 16],
  ];
  for (const [schedule, workers] of cases) {
    test(`${JSON.stringify(schedule)} on ${workers} workers never runs more than ${workers} calls at once`, async ({ toyRun }) => {
      const { result, task } = await toyRun({ valsetSize: 10, evalMs: [1, 50], reflectMs: [20, 200], schedule, workers, maxMetricCalls: 300 });
      expect(task.maxInFlight).toBeLessThanOrEqual(workers);
      // Work was waiting for slots: the cap was reached, not merely respected.
      const wide = schedule.kind === 'async' ? schedule.inFlight * 3 : schedule.kind === 'batched' ? (schedule.parents ?? 1) * (schedule.perParent ?? 1) * 3 : 0;
      if (wide > workers) expect(task.maxInFlight).toBe(workers);
      expect(result.workerUtilization).toBeGreaterThan(0);
      expect(result.workerUtilization).toBeLessThanOrEqual(1);
    });
  }
});
