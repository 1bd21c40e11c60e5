// The outside-like task of bench/fleetFaults.ts, as a module worker processes load
// (`--adapter bench/support/fleetTask.ts#adapter`): the demo task with task-model calls of
// ~100 ms and reflections of ~100 ms (real time), run as P x N = 8 x 8 on 256 slots with a
// budget of 3,000 metric calls. Only the adapter runs on the workers; the run keeps the rest.
import { createDemoTask } from '../../src/demo/demoTask.js';
import type { OptimizeConfig } from '../../src/config/optimizeConfig.js';
import type { DemoExample } from '../../src/demo/demoTask.js';

export const FLEET_TASK = { seed: 7, metricCallMs: 100, reflectionMs: 100 } as const;

const task = createDemoTask(FLEET_TASK);

export const adapter = task.adapter;

export function fleetRunConfig(executor?: OptimizeConfig<DemoExample>['executor']): OptimizeConfig<DemoExample> {
  return {
    seedCandidate: task.seedCandidate,
    trainset: task.trainset,
    valset: task.valset,
    adapter: task.adapter,
    reflectionLm: task.reflectionLm,
    schedule: { kind: 'batched', parents: 8, perParent: 8 },
    workers: 256,
    maxMetricCalls: 3000,
    seed: 0,
    ...(executor ? { executor } : {}),
  };
}
