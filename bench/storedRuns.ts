// The runs whose results bench/resultHashes.ts fingerprints: the workload (the optimizer's own
// defaults otherwise), the schedules and the tasks. Shared with bench/lastCallsFlip.ts, which
// reports how a changed default moves those very runs.
import type { BenchSetting, Workload } from './benchTask.js';

// The mechanisms' workload with the optimizer's own defaults (tie order, step minibatches), so the
// default paths are the ones fingerprinted.
export const STORED_WORKLOAD: Workload = { metricCallMs: 20, reflectionMs: 100, workers: 16, budget: 1500, trainSize: 60, valSize: 30, testSize: 60, simulated: true };

/** The three schedules, then the paths they do not reach: a valset race, merges, async rebasing without its wait. */
export const STORED_SETTINGS: BenchSetting[] = [
  { label: 'single', schedule: { kind: 'batched', parents: 1, perParent: 1 } },
  { label: '2x2', schedule: { kind: 'batched', parents: 2, perParent: 2 } },
  { label: 'async 8', schedule: { kind: 'async', inFlight: 8 } },
  { label: '4x1 race', schedule: { kind: 'batched', parents: 4, perParent: 1 }, options: { valsetPolicy: { kind: 'race', chunk: 10, margin: 0 } } },
  { label: '2x2 merge', schedule: { kind: 'batched', parents: 2, perParent: 2 }, options: { merge: { maxMerges: 4 } } },
  { label: 'async 8 rebase no-wait race merge', schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseWait: 'none' }, options: { valsetPolicy: { kind: 'race', chunk: 10, margin: 0 }, merge: { maxMerges: 4 } } },
];

export const STORED_TASKS = ['demo', 'multistep', 'hotel'];
