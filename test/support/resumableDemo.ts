// The demo task at zero latency for the tests of a default that changed: a run that is asked to
// drain `stopAfter` metric calls in (a resumable stop), in a run directory or not, and what its
// config.json recorded. Each test sets what its default is about through `extra`.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDemoTask, type DemoExample, type DemoTaskOptions } from '../../src/demo/demoTask.js';
import type { OptimizeConfig } from '../../src/index.js';
import { withCallHook } from './callHook.js';

/** Batched 2x2, 4 workers, 400 calls, seed 3 on the demo task of seed 2 (sizes: the task's defaults) unless `extra` says otherwise. */
export function resumableDemoConfig(runDir: string | undefined, extra: Partial<OptimizeConfig<DemoExample>> = {}, stopAfter = Infinity, sizes: Pick<DemoTaskOptions, 'trainSize' | 'valSize' | 'testSize'> = {}): OptimizeConfig<DemoExample> {
  const task = createDemoTask({ seed: 2, ...sizes });
  const drain = new AbortController();
  let calls = 0;
  return {
    seedCandidate: task.seedCandidate,
    trainset: task.trainset,
    valset: task.valset,
    adapter: withCallHook(task.adapter, () => {
      if (++calls === stopAfter) drain.abort();
    }),
    reflectionLm: task.reflectionLm,
    runIdentity: { reflectionLm: 'demo' },
    schedule: { kind: 'batched', parents: 2, perParent: 2 },
    workers: 4,
    maxMetricCalls: 400,
    seed: 3,
    drainSignal: drain.signal,
    ...(runDir ? { runDir } : {}),
    ...extra,
  };
}

/** The settings a run directory's config.json recorded. */
export const recordOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { settings: Record<string, unknown> };

/** Rewrites a run directory's config.json as a record written before `setting` existed (without it). */
export function forgetSetting(dir: string, setting: string): void {
  const record = recordOf(dir);
  delete record.settings[setting];
  writeFileSync(join(dir, 'config.json'), JSON.stringify(record));
}
