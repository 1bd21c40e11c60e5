// How fast a variant climbs per metric call: the best valset score each run had found by a given
// number of calls (its discoveries' call counts), averaged over seeds. Tells a search that is
// slower per call apart from one that ends lower: the async issue's loss on the fact-gathering
// task was the former, made up where the task saturates.
//
//   npx tsx bench/climb.ts [--seeds 24] [--task hotel] <variant...>    (variants: bench/mechanisms.ts list)
import { optimize } from '../src/index.js';
import { SimulatedClock } from 'xstate';
import { runOnSimulatedClock, steppingClock } from '../src/clock.js';
import { benchArgs } from './cliArgs.js';
import { VARIANTS, WORKLOAD } from './mechanismVariants.js';
import { benchTask } from './tasks.js';

const { flag, positional: names } = benchArgs();
const seeds = Number(flag('--seeds', '24'));
const task = flag('--task', 'hotel');
const MARKS = [300, 450, 600, 750, 900, 1200, 1500];

for (const name of names) {
  const v = VARIANTS[name];
  if (!v) throw new Error(`unknown variant '${name}'; list them with: npx tsx bench/mechanisms.ts list`);
  const budget = v.options?.maxMetricCalls ?? WORKLOAD.budget;
  const marks = MARKS.filter((m) => m <= budget);
  const sums = marks.map(() => 0);
  for (let seed = 0; seed < seeds; seed++) {
    const clock = steppingClock(new SimulatedClock());
    const t = benchTask(task)({ seed, trainSize: WORKLOAD.trainSize, valSize: WORKLOAD.valSize, testSize: WORKLOAD.testSize, metricCallMs: WORKLOAD.metricCallMs, reflectionMs: WORKLOAD.reflectionMs, jitter: [0.5, 1.5], clock });
    const { seedCandidate, trainset, valset, adapter, reflectionLm } = t;
    const run = optimize({ seedCandidate, trainset, valset, adapter, reflectionLm, schedule: v.schedule, workers: WORKLOAD.workers, maxMetricCalls: WORKLOAD.budget, seed, clock, tieOrder: WORKLOAD.tieOrder, ...v.options });
    const r = await runOnSimulatedClock(clock, run);
    marks.forEach((m, i) => {
      const found = r.valScores.filter((_, j) => (r.discoveryMetricCalls[j] ?? Infinity) <= m);
      sums[i] = (sums[i] as number) + Math.max(0, ...found);
    });
  }
  console.log(`${task} ${name} (${seeds} seeds), best val by calls: ${marks.map((m, i) => `${m}: ${((sums[i] as number) / seeds).toFixed(3)}`).join(', ')}`);
}
