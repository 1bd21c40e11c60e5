// Time to quality (issue 47): on every bench task, at 16, 128 and 512 worker slots (budget 1,500
// calls; also 5,000 at 512), the best-so-far valset curves of each schedule over seeds, and when
// the seed-mean curve first reaches the sequential loop's mean final best val minus 0.005 (the
// target); beside it each schedule's final best val and test (mean ± standard error over seeds),
// slot use, calls spent, the best candidate's lineage depth and the proposals made. Simulated
// time by default (the stepping SimulatedClock: deterministic, compare across commits); --real
// runs on the system clock (compare only within one invocation, on a quiet machine).
//
//   npx tsx bench/timeToQuality.ts run [--tasks demo,bookkeeping] [--configs w128-b1500] [--schedules 'sequential,async 16'] [--seeds 24] [--from 0] [--real]
//   npx tsx bench/timeToQuality.ts table [--seeds 24] [--from 0] [--real]     tables, bench/results/time-to-quality/summary.json and one SVG per task and configuration
//
// Runs are stored per seed as they finish (bench/results/time-to-quality/<task>/<config>/<schedule>.json),
// so `run` resumes, and several `run` processes on different tasks can share the two cores.
import { writeFileSync } from 'node:fs';
import { benchArgs } from './cliArgs.js';
import { panel, plot, printPanel, type TimeToQualityPanel, QUALITY_MARGIN } from './timeToQualityPanel.js';
import {
  configName,
  CONFIGURATIONS,
  loadSetting,
  parseConfiguration,
  resultsDir,
  runSetting,
  schedulesFor,
  TTQ_TASKS,
  type Configuration,
  type StoredSetting,
} from './timeToQualityRuns.js';

const { flag, positional } = benchArgs();
const [command = 'table'] = positional;
const real = process.argv.includes('--real');
const list = (name: string, fallback: readonly string[]) => (flag(name, '') === '' ? [...fallback] : flag(name, '').split(',').map((s) => s.trim()));
const tasks = list('--tasks', TTQ_TASKS);
const configs = list('--configs', CONFIGURATIONS.map(configName)).map(parseConfiguration);
const seedCount = Number(flag('--seeds', real ? '3' : '24'));
const from = Number(flag('--from', '0'));
const seeds = Array.from({ length: seedCount }, (_, i) => from + i);

function storedSettings(task: string, c: Configuration): StoredSetting[] {
  return schedulesFor(c).flatMap((s) => loadSetting(real, task, c, s.label) ?? []);
}

if (command === 'run') {
  const only = flag('--schedules', '') === '' ? undefined : list('--schedules', []);
  for (const task of tasks) {
    for (const c of configs) {
      for (const s of schedulesFor(c).filter((s) => !only || only.includes(s.label))) {
        await runSetting(s, task, c, seeds, real, (line) => process.stderr.write(`${line}\n`));
      }
    }
  }
} else if (command === 'table') {
  const panels: TimeToQualityPanel[] = [];
  for (const task of tasks) {
    for (const c of configs) {
      const settings = storedSettings(task, c);
      const p = panel(task, c, settings, seeds);
      if (!p) continue;
      panels.push(p);
      printPanel(p);
      writeFileSync(new URL(`${task}-${configName(c)}.svg`, resultsDir(real)), plot(p, settings, seeds, real));
    }
  }
  const json = JSON.stringify({ seeds, real, margin: QUALITY_MARGIN, panels }, (_k, v: unknown) => (v === Infinity ? null : v), 1);
  writeFileSync(new URL('summary.json', resultsDir(real)), `${json}\n`);
} else {
  throw new Error(`unknown command '${command}' (run | table)`);
}
