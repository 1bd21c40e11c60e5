// The budget's last calls (`spendLastCalls`, issue 39): how much of a small budget a run spends,
// and what the last calls buy, with the option off and on, per task, valset size, budget and
// schedule, in simulated time (metric call ~20 ms, reflection ~100 ms, W = 16, trainset 60,
// testset 60). Prints one row per cell: calls spent (mean, lowest of the runs that ended on the
// budget, and how many stopped on a perfect valset score instead), best val, held-out test,
// candidates, and children denied their valset evaluation for the budget.
//
//   npx tsx bench/lastCalls.ts [--seeds 24] [--tasks demo,multistep,hotel] [--valsets 20]
//                              [--budgets 100,300,1500 | --multiples 5,10 (budgets as multiples of the valset)]
import { UNPAID_VALSET_REASON } from '../src/gepa/search/lastCalls.js';
import { benchRun, type BenchSetting, type Workload } from './benchTask.js';
import { benchArgs } from './cliArgs.js';
import { mean } from './table.js';

const { flag } = benchArgs();
const seeds = Number(flag('--seeds', '24'));
const tasks = flag('--tasks', 'demo,multistep,hotel').split(',');
const valsets = flag('--valsets', '20').split(',').map(Number);
const multiples = flag('--multiples', '');
const budgetsFor = (valSize: number): number[] =>
  multiples === '' ? flag('--budgets', '100,300,1500').split(',').map(Number) : multiples.split(',').map((m) => Number(m) * valSize);
const SCHEDULES: BenchSetting[] = [
  { label: 'single', schedule: { kind: 'batched', parents: 1, perParent: 1 } },
  { label: '4x1', schedule: { kind: 'batched', parents: 4, perParent: 1 } },
  { label: 'async 8', schedule: { kind: 'async', inFlight: 8 } },
];
/** The bench tasks' perfect score: a run whose best valset mean reaches it stops there (stopReason 'perfectScore'). */
const PERFECT = 1;

console.log('| task | valset | budget | schedule | spendLastCalls | calls spent, mean | lowest (ended on the budget) | perfect-score stops | best val | test | candidates | denied for the budget |');
console.log('|---|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|');
for (const task of tasks) {
  for (const valSize of valsets) {
    for (const budget of budgetsFor(valSize)) {
      const workload: Workload = { metricCallMs: 20, reflectionMs: 100, workers: 16, budget, trainSize: 60, valSize, testSize: 60, simulated: true, task };
      for (const setting of SCHEDULES) {
        for (const spendLastCalls of [false, true]) {
          const runs = [];
          for (let seed = 0; seed < seeds; seed++) runs.push(await benchRun({ ...setting, options: { spendLastCalls } }, seed, workload));
          const calls = runs.map((r) => r.metricCalls);
          const onBudget = runs.filter((r) => r.bestValScore < PERFECT).map((r) => r.metricCalls);
          const denied = runs.map((r) => r.proposals.filter((p) => p.reason === UNPAID_VALSET_REASON).length);
          const lowest = onBudget.length === 0 ? '-' : Math.min(...onBudget);
          const row = [task, valSize, budget, setting.label, spendLastCalls ? 'on' : 'off', mean(calls).toFixed(1), lowest, runs.length - onBudget.length, mean(runs.map((r) => r.bestValScore)).toFixed(4), mean(runs.map((r) => r.testScore)).toFixed(4), mean(runs.map((r) => r.candidates)).toFixed(2), mean(denied).toFixed(2)];
          console.log(`| ${row.join(' | ')} |`);
        }
      }
    }
  }
}
