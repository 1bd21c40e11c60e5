// The run the durable-run tests interrupt and resume: the demo task in the batched 2 x 2
// schedule, on real time (a child process cannot share a simulated clock), a few seconds long.
// `onCall` sees every adapter.evaluate call that actually starts, to count what was paid.
import { createDemoTask } from '../../src/demo/demoTask.js';
import { withCallHook } from './callHook.js';
import type { OptimizeConfig } from '../../src/config/optimizeConfig.js';
import type { DemoExample } from '../../src/demo/demoTask.js';

export const DURABLE_WORKERS = 16;

export function durableRunConfig(runDir: string, onCall: () => void = () => {}): OptimizeConfig<DemoExample> {
  const task = createDemoTask({ seed: 1, metricCallMs: 20, reflectionMs: 80 });
  return {
    seedCandidate: task.seedCandidate,
    trainset: task.trainset,
    valset: task.valset,
    adapter: withCallHook(task.adapter, onCall),
    reflectionLm: task.reflectionLm,
    runIdentity: { reflectionLm: 'demo' },
    schedule: { kind: 'batched', parents: 2, perParent: 2 },
    workers: DURABLE_WORKERS,
    maxMetricCalls: 600,
    seed: 5,
    runDir,
  };
}
