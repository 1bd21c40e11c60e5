// For a seed, the batched schedule gives the identical result whatever the worker count and
// whatever order the calls finish in, with the valset race on too.
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { runOnSimulatedClock, steppingClock } from '../src/clock.js';
import { createDemoTask } from '../src/demo/demoTask.js';
import { optimize, type OptimizeResult } from '../src/index.js';
import type { OptimizeConfig } from '../src/config/optimizeConfig.js';
import type { Schedule } from '../src/settingValues.js';
import { toyRun } from './support/toyRun.js';

/** A batched run whose calls finish in an order the salt decides (what they return does not change). */
const run = async (schedule: Schedule, workers: number, latencySalt: string, seed = 3, rules: Pick<OptimizeConfig<unknown>, 'stepMinibatches' | 'tieOrder'> = {}): Promise<OptimizeResult> =>
  (
    await toyRun({
      ...rules,
      latencySalt,
      evalMs: [1, 60],
      reflectMs: [10, 300],
      failureRate: 0.05,
      schedule,
      workers,
      maxMetricCalls: 260,
      seed,
      merge: { maxMerges: 3 },
    })
  ).result;

/** Everything but the timing figures. */
const essence = ({ elapsedMs: _e, workerUtilization: _u, discoveryElapsedMs: _d, ...rest }: OptimizeResult) => rest;

describe('batched determinism', () => {
  for (const schedule of [{ kind: 'batched' }, { kind: 'batched', parents: 2, perParent: 2 }, { kind: 'batched', parents: 4, perParent: 2 }] as Schedule[]) {
    it(`${JSON.stringify(schedule)}: identical for 1, 3 and 16 workers and any finishing order`, async () => {
      const reference = essence(await run(schedule, 1, 'a'));
      expect(reference.candidates.length).toBeGreaterThan(2);
      for (const [workers, salt] of [[3, 'b'], [16, 'c'], [16, 'd']] as const) {
        expect(essence(await run(schedule, workers, salt))).toEqual(reference);
      }
    });
  }

  it('with the valset race on (demo task, where children lose races): identical for 1, 3 and 16 workers', async () => {
    const raceRun = async (workers: number) => {
      const clock = steppingClock(new SimulatedClock());
      const task = createDemoTask({ seed: 5, metricCallMs: 20, reflectionMs: 100, clock });
      const { seedCandidate, trainset, valset, adapter, reflectionLm } = task;
      const config = { seedCandidate, trainset, valset, adapter, reflectionLm, workers, maxMetricCalls: 500, seed: 5, clock };
      const schedule: Schedule = { kind: 'batched', parents: 2, perParent: 2 };
      return essence(await runOnSimulatedClock(clock, optimize({ ...config, schedule, valsetPolicy: { kind: 'race', chunk: 10, margin: 0 } })));
    };
    const reference = await raceRun(1);
    expect(reference.proposals.filter((p) => p.reason.startsWith('lost its valset race')).length).toBeGreaterThan(2);
    for (const workers of [3, 16]) expect(await raceRun(workers)).toEqual(reference);
  });

  it("with the reference's sliding minibatches, under either tie order: identical for 1, 3 and 16 workers", async () => {
    const schedule: Schedule = { kind: 'batched', parents: 2, perParent: 2 };
    const runs: Array<ReturnType<typeof essence>> = [];
    for (const tieOrder of ['reference', 'oldest-survives'] as const) {
      const reference = essence(await run(schedule, 1, 'a', 3, { stepMinibatches: 'sliding', tieOrder }));
      expect(reference.candidates.length).toBeGreaterThan(2);
      for (const [workers, salt] of [[3, 'b'], [16, 'c']] as const) {
        expect(essence(await run(schedule, workers, salt, 3, { stepMinibatches: 'sliding', tieOrder }))).toEqual(reference);
      }
      runs.push(reference);
    }
    // The rule changes the run: sliding against fresh minibatches.
    expect(essence(await run(schedule, 1, 'a', 3, { stepMinibatches: 'fresh', tieOrder: 'reference' }))).not.toEqual(runs[0]);
  });

  it('a different seed gives a different run', async () => {
    const a = await run({ kind: 'batched', parents: 2, perParent: 2 }, 4, 'a', 3);
    const b = await run({ kind: 'batched', parents: 2, perParent: 2 }, 4, 'a', 4);
    expect(essence(a)).not.toEqual(essence(b));
  });
});
