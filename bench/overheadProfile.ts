// One overhead workload run again and again, for `node --cpu-prof` (or a quick CPU-time figure):
// the keyword or demo task, zero-latency calls, W = 16, 20,000 metric calls, as bench/overhead.ts.
//
//   node --cpu-prof --cpu-prof-dir DIR --import tsx bench/overheadProfile.ts [--schedule async16|8x1] [--valset 20] [--runs 5] [--warmups 2] [--task keyword]
import { optimize } from '../src/index.js';
import { createDemoTask } from '../src/demo/demoTask.js';
import type { Schedule } from '../src/settingValues.js';
import { benchArgs } from './cliArgs.js';
import { createKeywordTask } from './keywordTask.js';

const { flag } = benchArgs();
const valsetSize = Number(flag('--valset', '20'));
const runs = Number(flag('--runs', '5'));
const warmups = Number(flag('--warmups', '2'));
const task = flag('--task', 'keyword');
const schedules: Record<string, Schedule> = { async16: { kind: 'async', inFlight: 16 }, '8x1': { kind: 'batched', parents: 8, perParent: 1 } };
const schedule = schedules[flag('--schedule', 'async16')];
if (!schedule) throw new Error('--schedule async16 | 8x1');
const parts =
  task === 'keyword'
    ? createKeywordTask(200, valsetSize)
    : (() => {
        const demo = createDemoTask({ seed: 0, trainSize: 200, valSize: valsetSize, testSize: 10 });
        return { seedCandidate: demo.seedCandidate, trainset: demo.trainset, valset: demo.valset, adapter: demo.adapter, reflectionLm: demo.reflectionLm };
      })();
const run = () => optimize({ ...parts, schedule, workers: 16, maxMetricCalls: 20_000 } as Parameters<typeof optimize>[0]);
for (let i = 0; i < warmups; i++) await run();
const seconds: number[] = [];
for (let i = 0; i < runs; i++) {
  const start = process.cpuUsage();
  const result = await run();
  const used = process.cpuUsage(start);
  seconds.push((used.user + used.system) / 1e6);
  if (i === runs - 1) process.stderr.write(`${result.metricCalls} calls, ${result.proposals.length} proposals\n`);
}
if (runs > 0) {
  const best = Math.min(...seconds);
  process.stderr.write(`best ${best.toFixed(3)} s CPU: ${Math.round(20_000 / best)} calls/s (runs ${seconds.map((s) => s.toFixed(3)).join(' ')})\n`);
}
