// The budget's last calls (`spendLastCalls`, issue 39): how much of a small budget a run spends,
// and what the last calls buy, with the option off and on, per task, budget and schedule, in
// simulated time (metric call ~20 ms, reflection ~100 ms, W = 16, valset 20, trainset 60,
// testset 60). Prints one row per cell: calls spent (mean, lowest), best val, held-out test,
// candidates, and children denied their valset evaluation for the budget.
//
//   npx tsx bench/lastCalls.ts [--seeds 24] [--tasks demo,multistep,hotel] [--budgets 100,300,1500]
import { UNPAID_VALSET_REASON } from '../src/gepa/search/lastCalls.js';
import { benchRun, type BenchSetting, type Workload } from './benchTask.js';
import { benchArgs } from './cliArgs.js';
import { mean } from './table.js';

const { flag } = benchArgs();
const seeds = Number(flag('--seeds', '24'));
const tasks = flag('--tasks', 'demo,multistep,hotel').split(',');
const budgets = flag('--budgets', '100,300,1500').split(',').map(Number);
const SCHEDULES: BenchSetting[] = [
  { label: 'single', schedule: { kind: 'batched', parents: 1, perParent: 1 } },
  { label: '4x1', schedule: { kind: 'batched', parents: 4, perParent: 1 } },
  { label: 'async 8', schedule: { kind: 'async', inFlight: 8 } },
];

console.log('| task | budget | schedule | spendLastCalls | calls spent, mean | lowest | best val | test | candidates | denied for the budget |');
console.log('|---|---:|---|---|---:|---:|---:|---:|---:|---:|');
for (const task of tasks) {
  for (const budget of budgets) {
    const workload: Workload = { metricCallMs: 20, reflectionMs: 100, workers: 16, budget, trainSize: 60, valSize: 20, testSize: 60, simulated: true, task };
    for (const setting of SCHEDULES) {
      for (const spendLastCalls of [false, true]) {
        const runs = [];
        for (let seed = 0; seed < seeds; seed++) runs.push(await benchRun({ ...setting, options: { spendLastCalls } }, seed, workload));
        const calls = runs.map((r) => r.metricCalls);
        const denied = runs.map((r) => r.proposals.filter((p) => p.reason === UNPAID_VALSET_REASON).length);
        const row = [task, budget, setting.label, spendLastCalls ? 'on' : 'off', mean(calls).toFixed(1), Math.min(...calls), mean(runs.map((r) => r.bestValScore)).toFixed(4), mean(runs.map((r) => r.testScore)).toFixed(4), mean(runs.map((r) => r.candidates)).toFixed(2), mean(denied).toFixed(2)];
        console.log(`| ${row.join(' | ')} |`);
      }
    }
  }
}
