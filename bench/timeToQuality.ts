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
import { firstReach, seedMeanCurve } from './bestSoFar.js';
import { mean, standardError } from './table.js';
import { stepChartSvg } from './support/svgPlot.js';
import {
  configName,
  CONFIGURATIONS,
  loadSetting,
  parseConfiguration,
  resultsDir,
  runSetting,
  schedulesFor,
  SEQUENTIAL,
  TTQ_TASKS,
  type Configuration,
  type StoredSetting,
} from './timeToQualityRuns.js';

/** The target is the sequential loop's mean final best val minus this. */
export const QUALITY_MARGIN = 0.005;

const { flag, positional } = benchArgs();
const [command = 'table'] = positional;
const real = process.argv.includes('--real');
const list = (name: string, fallback: readonly string[]) => (flag(name, '') === '' ? [...fallback] : flag(name, '').split(',').map((s) => s.trim()));
const tasks = list('--tasks', TTQ_TASKS);
const configs = list('--configs', CONFIGURATIONS.map(configName)).map(parseConfiguration);
const seedCount = Number(flag('--seeds', real ? '3' : '24'));
const from = Number(flag('--from', '0'));
const seeds = Array.from({ length: seedCount }, (_, i) => from + i);

/** One schedule's figures at one configuration of one task. */
export interface TimeToQualityRow {
  label: string;
  seeds: number;
  wallClockMs: number;
  bestVal: number;
  bestValSe: number;
  test: number;
  testSe: number;
  /** When the seed-mean best-so-far curve first reaches the target (Infinity: never). */
  timeToQualityMs: number;
  /** Seeds whose own run reached the target. */
  seedsReaching: number;
  utilization: number;
  metricCalls: number;
  depth: number;
  proposals: number;
  /** Final best val and test each at least the sequential loop's minus the margin. */
  keepsQuality: boolean;
}

export interface TimeToQualityPanel {
  task: string;
  configuration: Configuration;
  target: number;
  sequentialVal: number;
  sequentialTest: number;
  rows: TimeToQualityRow[];
  /** Among the fixed schedules other than the sequential loop: the one that reaches the target soonest. */
  fastest?: string;
}

function onSeeds(s: StoredSetting): StoredSetting['runs'] {
  return s.runs.filter((r) => seeds.includes(r.seed));
}

export function panel(task: string, c: Configuration, settings: readonly StoredSetting[]): TimeToQualityPanel | undefined {
  const sequential = settings.find((s) => s.label === SEQUENTIAL);
  if (!sequential || onSeeds(sequential).length === 0) return undefined;
  const seq = onSeeds(sequential);
  const sequentialVal = mean(seq.map((r) => r.bestValScore));
  const sequentialTest = mean(seq.map((r) => r.testScore));
  const target = sequentialVal - QUALITY_MARGIN;
  const rows = settings
    .filter((s) => onSeeds(s).length > 0)
    .map((s): TimeToQualityRow => {
      const runs = onSeeds(s);
      const vals = runs.map((r) => r.bestValScore);
      const tests = runs.map((r) => r.testScore);
      return {
        label: s.label,
        seeds: runs.length,
        wallClockMs: mean(runs.map((r) => r.wallClockMs)),
        bestVal: mean(vals),
        bestValSe: standardError(vals),
        test: mean(tests),
        testSe: standardError(tests),
        timeToQualityMs: firstReach(seedMeanCurve(runs.map((r) => r.steps)), target),
        seedsReaching: runs.filter((r) => Number.isFinite(firstReach(r.steps, target))).length,
        utilization: mean(runs.map((r) => r.utilization)),
        metricCalls: mean(runs.map((r) => r.metricCalls)),
        depth: mean(runs.map((r) => r.depth)),
        proposals: mean(runs.map((r) => r.proposals)),
        keepsQuality: mean(vals) >= sequentialVal - QUALITY_MARGIN && mean(tests) >= sequentialTest - QUALITY_MARGIN,
      };
    });
  const fixed = rows.filter((r) => r.label !== SEQUENTIAL && Number.isFinite(r.timeToQualityMs)).sort((a, b) => a.timeToQualityMs - b.timeToQualityMs);
  return { task, configuration: c, target, sequentialVal, sequentialTest, rows, ...(fixed[0] ? { fastest: fixed[0].label } : {}) };
}

const secs = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : 'never');

function printPanel(p: TimeToQualityPanel): void {
  const seqTtq = p.rows.find((r) => r.label === SEQUENTIAL)?.timeToQualityMs ?? Infinity;
  console.log(
    `\n### ${p.task}, ${p.configuration.slots} slots, budget ${p.configuration.budget}: target ${p.target.toFixed(3)} (sequential ${p.sequentialVal.toFixed(3)} / ${p.sequentialTest.toFixed(3)} - ${QUALITY_MARGIN})\n`,
  );
  console.log('| schedule | seeds | wall | best val | test | time to quality | / sequential | seeds reaching | slot use | calls | depth | proposals |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of p.rows) {
    const mark = r.label === p.fastest ? ' **(fastest fixed)**' : '';
    const ratio = Number.isFinite(r.timeToQualityMs) ? (r.timeToQualityMs / seqTtq).toFixed(2) : '';
    console.log(
      `| ${r.label}${mark} | ${r.seeds} | ${secs(r.wallClockMs)} | ${r.bestVal.toFixed(3)} ± ${r.bestValSe.toFixed(3)} | ${r.test.toFixed(3)} ± ${r.testSe.toFixed(3)} | ${secs(r.timeToQualityMs)} | ${ratio} | ${r.seedsReaching}/${r.seeds} | ${Math.round(r.utilization * 100)}% | ${Math.round(r.metricCalls)} | ${r.depth.toFixed(1)} | ${r.proposals.toFixed(1)} |`,
    );
  }
}

function plot(p: TimeToQualityPanel, settings: readonly StoredSetting[]): string {
  const series = settings
    .filter((s) => onSeeds(s).length > 0)
    .map((s) => {
      const runs = onSeeds(s);
      const curve = seedMeanCurve(runs.map((r) => r.steps));
      const end = Math.max(...runs.map((r) => r.wallClockMs));
      return { label: s.label, points: [...curve, [end, curve[curve.length - 1]?.[1] ?? 0] as [number, number]].map(([t, v]) => [t / 1000, v] as [number, number]), emphasis: s.label === SEQUENTIAL || s.label === p.fastest };
    });
  const ys = series.flatMap((s) => s.points.map(([, y]) => y));
  const xMax = Math.max(...series.map((s) => s.points[s.points.length - 1]?.[0] ?? 1));
  return stepChartSvg(series, {
    title: `${p.task}: ${p.configuration.slots} slots, ${p.configuration.budget} calls, ${seeds.length} seeds (${real ? 'real' : 'simulated'} time)`,
    xLabel: 'seconds (log scale)',
    yLabel: 'seed-mean best valset score so far',
    xMin: 0.1,
    xMax: Math.max(1, xMax * 1.05),
    yMin: Math.floor(Math.min(...ys) * 20) / 20,
    yMax: Math.ceil(Math.max(...ys) * 20) / 20,
    target: { y: p.target, label: `sequential's final best - ${QUALITY_MARGIN}` },
  });
}

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
      const p = panel(task, c, settings);
      if (!p) continue;
      panels.push(p);
      printPanel(p);
      writeFileSync(new URL(`${task}-${configName(c)}.svg`, resultsDir(real)), plot(p, settings));
    }
  }
  const json = JSON.stringify({ seeds, real, margin: QUALITY_MARGIN, panels }, (_k, v: unknown) => (v === Infinity ? null : v), 1);
  writeFileSync(new URL('summary.json', resultsDir(real)), `${json}\n`);
} else {
  throw new Error(`unknown command '${command}' (run | table)`);
}
