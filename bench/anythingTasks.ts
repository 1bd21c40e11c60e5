// The optimizeAnything bench tasks by name (src/demo/anything/), each with the budget, split sizes
// and simulated latencies its side-by-side runs use (bench/optimizeAnything.ts). service-config is
// single-task search (no dataset: the candidate is the solution); records is generalization
// (dataset, valset, and a held-out testset for the best candidate).
import type { DemoTaskOptions } from '../src/demo/demoTask.js';
import type { AnythingTask } from '../src/demo/anything/anythingTask.js';
import { createRecordTask } from '../src/demo/anything/recordTask.js';
import { createServiceConfigTask } from '../src/demo/anything/serviceConfigTask.js';

export interface AnythingBenchTask {
  create: (options: DemoTaskOptions) => AnythingTask<unknown>;
  /** Metric calls per run, both implementations. */
  budget: number;
  sizes: Pick<DemoTaskOptions, 'trainSize' | 'valSize' | 'testSize'>;
  /** Mean simulated latencies (ms) of one evaluator call and one reflection call. */
  latency: { metricCallMs: number; reflectionMs: number };
}

/** Worker slots of our runs, and threads of the reference's evaluation pool in its simulated wall-clock. */
export const ANYTHING_WORKERS = 16;

export const ANYTHING_TASKS: Record<string, AnythingBenchTask> = {
  /** One config, scored by a 60-second load test against a hidden workload. */
  'service-config': {
    create: createServiceConfigTask,
    budget: 80,
    sizes: {},
    latency: { metricCallMs: 60_000, reflectionMs: 20_000 },
  },
  /** A prompt for normalizing customer records, trained on 30 records, judged on 20, tested on 60. */
  records: {
    create: (o) => createRecordTask(o) as AnythingTask<unknown>,
    budget: 300,
    sizes: { trainSize: 30, valSize: 20, testSize: 60 },
    latency: { metricCallMs: 3_000, reflectionMs: 20_000 },
  },
};

export function anythingBenchTask(name: string): AnythingBenchTask {
  const task = ANYTHING_TASKS[name];
  if (!task) throw new Error(`unknown task '${name}' (known: ${Object.keys(ANYTHING_TASKS).join(', ')})`);
  return task;
}

/** The mean score of `candidate` on the task's held-out testset, at zero latency (none for single-task search). */
export async function heldOutScore(bench: AnythingBenchTask, seed: number, candidate: string): Promise<number | undefined> {
  const scorer = bench.create({ seed, ...bench.sizes });
  if (!scorer.testset) return undefined;
  const scores = await Promise.all(scorer.testset.map((e) => scorer.evaluate(candidate, e, {})));
  return scores.reduce((a, e) => a + e.score, 0) / scores.length;
}
