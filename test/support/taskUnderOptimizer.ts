// A simulated task under the optimizer, as the task tests run it: batched 2 x 2, 300 metric calls,
// seed 4, 20 ms a metric call and 100 ms a reflection on a simulated clock. The tests run it at two
// worker counts: a batched run's result must not depend on how many calls run at once.
import { SimulatedClock } from 'xstate';
import { runOnSimulatedClock, steppingClock } from '../../src/clock.js';
import type { DemoTaskOptions } from '../../src/demo/demoTask.js';
import { optimize, type OptimizeResult } from '../../src/index.js';
import type { Adapter, Candidate } from '../../src/gepa/core/adapter.js';
import type { LanguageModel } from '../../src/gepa/core/languageModel.js';

/** What a run needs of a task. */
interface RunnableTask<Example> {
  seedCandidate: Candidate;
  trainset: Example[];
  valset: Example[];
  adapter: Adapter<Example>;
  reflectionLm: LanguageModel;
}

export function batchedTaskRun<Example>(createTask: (options: DemoTaskOptions) => RunnableTask<Example>, workers: number): Promise<OptimizeResult> {
  const clock = steppingClock(new SimulatedClock());
  const { seedCandidate, trainset, valset, adapter, reflectionLm } = createTask({ seed: 4, metricCallMs: 20, reflectionMs: 100, clock });
  const work = optimize({ seedCandidate, trainset, valset, adapter, reflectionLm, schedule: { kind: 'batched', parents: 2, perParent: 2 }, workers, maxMetricCalls: 300, seed: 4, clock });
  return runOnSimulatedClock(clock, work);
}
