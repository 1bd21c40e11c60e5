// What turning `spendLastCalls` on by default changes in the runs bench/resultHashes.ts stores
// (bench/storedRuns.ts: six schedules x three tasks x the stored seeds, budget 1,500, valset 30):
// for each run, calls spent, best val and held-out test with the option off (before) and on
// (after), then how many moved and the mean and largest moves.
//
//   npx tsx bench/lastCallsFlip.ts [--seeds 6]
import { benchRun, type RunFigures } from './benchTask.js';
import { benchArgs } from './cliArgs.js';
import { STORED_SETTINGS, STORED_TASKS, STORED_WORKLOAD } from './storedRuns.js';
import { mean } from './table.js';

const { flag } = benchArgs();
const seeds = Number(flag('--seeds', '6'));
const FIGURES = [
  ['calls', (r: RunFigures) => r.metricCalls, 0],
  ['best val', (r: RunFigures) => r.bestValScore, 4],
  ['test', (r: RunFigures) => r.testScore, 4],
  ['candidates', (r: RunFigures) => r.candidates, 0],
] as const;

const moves: number[][] = FIGURES.map(() => []);
console.log(`| task | schedule | seed | ${FIGURES.map(([name]) => `${name} off → on`).join(' | ')} |`);
console.log(`|---|---|---:|${FIGURES.map(() => '---|').join('')}`);
for (const task of STORED_TASKS) {
  for (const setting of STORED_SETTINGS) {
    for (let seed = 0; seed < seeds; seed++) {
      const runs: RunFigures[] = [];
      for (const spendLastCalls of [false, true]) runs.push(await benchRun({ ...setting, options: { ...setting.options, spendLastCalls } }, seed, { ...STORED_WORKLOAD, task }));
      const [before, after] = runs as [RunFigures, RunFigures];
      const cells = FIGURES.map(([, of, digits], i) => {
        const [a, b] = [of(before), of(after)];
        moves[i]?.push(b - a);
        return a === b ? `${a.toFixed(digits)} (=)` : `${a.toFixed(digits)} → ${b.toFixed(digits)}`;
      });
      console.log(`| ${task} | ${setting.label} | ${seed} | ${cells.join(' | ')} |`);
    }
  }
}
console.log('');
for (const [i, [name, , digits]] of FIGURES.entries()) {
  const d = moves[i] as number[];
  const moved = d.filter((x) => x !== 0);
  const largest = d.reduce((m, x) => (Math.abs(x) > Math.abs(m) ? x : m), 0);
  console.log(`${name}: ${moved.length} of ${d.length} runs moved (${d.filter((x) => x > 0).length} up, ${d.filter((x) => x < 0).length} down); mean move ${mean(d).toFixed(digits + 1)}, largest ${largest.toFixed(digits)}`);
}
