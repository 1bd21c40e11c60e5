// Orchestration overhead: zero-latency adapter and reflection LM, so the only cost is the
// runtime itself (actors, messages, slots, cache, domain), on one core (CPU time of the process,
// so other load on the machine does not count). Two tasks:
//   keyword  the toy task of keywordTask.ts, whose calls cost a few string operations: the
//            figure to compare with the reference engine's ~25,000 calls/s on a toy task;
//   demo     the built-in demo task, whose simulated models do real string work per call.
// Each task is measured over several runs after warm-up runs (the JIT's first runs are slower;
// a long optimization spends its time in the warm state). This VM's CPU speed wanders by about
// 15% (a bare loop varies that much), and noise only ever slows a run down, so the best run is
// the figure for the runtime's cost; the median is kept beside it.
import { optimize } from '../src/index.js';
import { createDemoTask } from '../src/demo/demoTask.js';
import type { Schedule } from '../src/settingValues.js';
import { createKeywordTask } from './keywordTask.js';
import { median } from './table.js';

export type OverheadTask = 'keyword' | 'demo';

export interface OverheadFigures {
  task: OverheadTask;
  schedule: string;
  valsetSize: number;
  metricCalls: number;
  reflectionCalls: number;
  proposals: number;
  /** CPU seconds of the measured runs, sorted. */
  runs: number[];
  /** Median CPU seconds. */
  seconds: number;
  /** Metric calls per CPU second at the median run. */
  metricCallsPerSecond: number;
  /** Metric calls per CPU second at the best run. */
  bestMetricCallsPerSecond: number;
  /** The first, cold run (JIT still compiling), for comparison. */
  coldMetricCallsPerSecond: number;
}

export interface OverheadOptions {
  task: OverheadTask;
  schedule: Schedule;
  label: string;
  budget: number;
  workers: number;
  valsetSize: number;
  warmups?: number;
  measured?: number;
}

function makeTask(task: OverheadTask, valsetSize: number) {
  if (task === 'keyword') return createKeywordTask(200, valsetSize);
  const demo = createDemoTask({ seed: 0, trainSize: 200, valSize: valsetSize, testSize: 10 });
  return { seedCandidate: demo.seedCandidate, trainset: demo.trainset, valset: demo.valset, adapter: demo.adapter, reflectionLm: demo.reflectionLm };
}

export async function measureOverhead(o: OverheadOptions): Promise<OverheadFigures> {
  const task = makeTask(o.task, o.valsetSize);
  const run = () => optimize({ ...task, schedule: o.schedule, workers: o.workers, maxMetricCalls: o.budget } as Parameters<typeof optimize>[0]);
  const cpuSecondsOf = async () => {
    const start = process.cpuUsage();
    const result = await run();
    const used = process.cpuUsage(start);
    return { result, seconds: (used.user + used.system) / 1e6 };
  };
  const cold = await cpuSecondsOf();
  for (let i = 1; i < (o.warmups ?? 3); i++) await run();
  const runs: number[] = [];
  let last = cold.result;
  for (let i = 0; i < (o.measured ?? 5); i++) {
    const { result, seconds } = await cpuSecondsOf();
    runs.push(seconds);
    last = result;
  }
  runs.sort((a, b) => a - b);
  const seconds = median(runs);
  return {
    task: o.task,
    schedule: o.label,
    valsetSize: o.valsetSize,
    metricCalls: last.metricCalls,
    reflectionCalls: last.reflectionCalls,
    proposals: last.proposals.length,
    runs,
    seconds,
    metricCallsPerSecond: last.metricCalls / seconds,
    bestMetricCallsPerSecond: last.metricCalls / (runs[0] as number),
    coldMetricCallsPerSecond: cold.result.metricCalls / cold.seconds,
  };
}
