// Orchestration overhead: the demo task with zero-latency adapter and reflection model, so the
// only cost is the runtime itself (actors, messages, slots, cache, domain) plus the demo
// model's own string work, on one core (CPU time of the process, so other load does not count).
import { optimize } from '../src/index.js';
import { createDemoTask } from '../src/demo/demoTask.js';
import type { Schedule } from '../src/types.js';

export interface OverheadFigures {
  schedule: string;
  valsetSize: number;
  metricCalls: number;
  reflectionCalls: number;
  seconds: number;
  metricCallsPerSecond: number;
}

export async function measureOverhead(schedule: Schedule, label: string, budget: number, workers: number, valsetSize: number): Promise<OverheadFigures> {
  const task = createDemoTask({ seed: 0, trainSize: 200, valSize: valsetSize, testSize: 10 });
  const run = () =>
    optimize({
      seedCandidate: task.seedCandidate,
      trainset: task.trainset,
      valset: task.valset,
      adapter: task.adapter,
      reflectionLm: task.reflectionLm,
      schedule,
      workers,
      maxMetricCalls: budget,
    });
  await run(); // warm-up: JIT and the demo model's parse caches
  // CPU time of this process: the figure is the runtime's cost, not the machine's other load.
  const start = process.cpuUsage();
  const result = await run();
  const used = process.cpuUsage(start);
  const seconds = (used.user + used.system) / 1e6;
  return { schedule: label, valsetSize, metricCalls: result.metricCalls, reflectionCalls: result.reflectionCalls, seconds, metricCallsPerSecond: result.metricCalls / seconds };
}
