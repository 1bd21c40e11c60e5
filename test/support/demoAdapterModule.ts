// The demo task's adapter as a module a worker process can load (`--adapter this#adapter`):
// same seed and latency as the local run it is compared with, so a worker computes exactly
// what the local adapter computes. `flakyAdapter` throws on a fixed tenth of the examples;
// `slowAdapter` answers the same, slowly.
import { createDemoTask, type DemoExample } from '../../src/demo/demoTask.js';
import { hashString } from '../../src/demo/hash32.js';
import type { Adapter } from '../../src/gepa/core/adapter.js';

export const DEMO_TASK_OPTIONS = { seed: 5, metricCallMs: 5, trainSize: 30, valSize: 12 } as const;

export const demoTask = createDemoTask(DEMO_TASK_OPTIONS);

export const adapter: Adapter<DemoExample> = demoTask.adapter;

/** Examples this adapter always fails on: about one in ten, chosen by id. */
export const failsOn = (example: DemoExample): boolean => hashString(example.id) % 10 === 0;

export const flakyAdapter: Adapter<DemoExample> = {
  ...demoTask.adapter,
  async evaluate(candidate, example, ctx) {
    if (failsOn(example)) throw new Error(`simulated adapter failure on ${example.id}`);
    return demoTask.adapter.evaluate(candidate, example, ctx);
  },
};

/** The same answers, 25 ms later: a worker serving it holds each job long enough to be killed mid-job. */
export const slowAdapter: Adapter<DemoExample> = {
  ...demoTask.adapter,
  async evaluate(candidate, example, ctx) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    return demoTask.adapter.evaluate(candidate, example, ctx);
  },
};

/** The same answers after keeping the event loop busy (no await) for 1.5 s: a worker serving it is busy, not lost. */
export const busyAdapter: Adapter<DemoExample> = {
  ...demoTask.adapter,
  async evaluate(candidate, example, ctx) {
    const end = performance.now() + 1500;
    while (performance.now() < end) {
      // Busy: nothing else in this process's event loop runs meanwhile.
    }
    return demoTask.adapter.evaluate(candidate, example, ctx);
  },
};
