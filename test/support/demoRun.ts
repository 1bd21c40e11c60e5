// The optimization the remote-executor tests run, locally and on workers: the demo task of
// demoAdapterModule.ts, batched 2x2, 8 slots, 300 metric calls. `essence` drops the timings.
import type { OptimizeConfig } from '../../src/config/optimizeConfig.js';
import type { OptimizeResult } from '../../src/gepa/core/optimizeResult.js';
import type { DemoExample } from '../../src/demo/demoTask.js';
import { demoTask } from './demoAdapterModule.js';

export function demoRunConfig(overrides: Partial<OptimizeConfig<DemoExample>> = {}): OptimizeConfig<DemoExample> {
  return {
    seedCandidate: demoTask.seedCandidate,
    trainset: demoTask.trainset,
    valset: demoTask.valset,
    adapter: demoTask.adapter,
    reflectionLm: demoTask.reflectionLm,
    runIdentity: { reflectionLm: 'demo' },
    schedule: { kind: 'batched', parents: 2, perParent: 2 },
    workers: 8,
    maxMetricCalls: 300,
    seed: 11,
    ...overrides,
  };
}

/** Everything but the timing figures. */
export const essence = ({ elapsedMs: _e, workerUtilization: _u, discoveryElapsedMs: _d, ...rest }: OptimizeResult) => rest;

/** Worker arguments, default settings: a dead worker's jobs move on within about a second by failover, not by short locks. */
export const workerArgs = (url: string, queue: string, adapterExport: string, concurrency: number): string[] => [
  '--adapter', `test/support/demoAdapterModule.ts#${adapterExport}`, '--redis', url, '--queue', queue, '--concurrency', String(concurrency),
];
