// The time-to-quality bench's figures (issue 47): per task and configuration, each schedule's
// seed-mean best-so-far curve and when it first reaches the target (the sequential loop's mean
// final best val minus QUALITY_MARGIN), its final scores, slot use, calls, depth and proposals; a
// markdown table and an SVG chart of the curves. Read by bench/timeToQuality.ts and by the
// prototypes that measure against the same target.
import { firstReach, seedMeanCurve } from './bestSoFar.js';
import { mean, standardError } from './table.js';
import { stepChartSvg } from './support/svgPlot.js';
import { AUTO, SEQUENTIAL, type Configuration, type StoredSetting } from './timeToQualityRuns.js';

/** The target is the sequential loop's mean final best val minus this. */
export const QUALITY_MARGIN = 0.005;

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

const onSeeds = (s: StoredSetting, seeds: readonly number[]): StoredSetting['runs'] => s.runs.filter((r) => seeds.includes(r.seed));

/** The panel of one task at one configuration, on `seeds`; undefined without sequential runs (they set the target). */
export function panel(task: string, c: Configuration, settings: readonly StoredSetting[], seeds: readonly number[]): TimeToQualityPanel | undefined {
  const sequential = settings.find((s) => s.label === SEQUENTIAL);
  if (!sequential || onSeeds(sequential, seeds).length === 0) return undefined;
  const seq = onSeeds(sequential, seeds);
  const sequentialVal = mean(seq.map((r) => r.bestValScore));
  const sequentialTest = mean(seq.map((r) => r.testScore));
  const target = sequentialVal - QUALITY_MARGIN;
  const rows = settings
    .filter((s) => onSeeds(s, seeds).length > 0)
    .map((s): TimeToQualityRow => {
      const runs = onSeeds(s, seeds);
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
  const fixed = rows.filter((r) => r.label !== SEQUENTIAL && r.label !== AUTO && Number.isFinite(r.timeToQualityMs)).sort((a, b) => a.timeToQualityMs - b.timeToQualityMs);
  return { task, configuration: c, target, sequentialVal, sequentialTest, rows, ...(fixed[0] ? { fastest: fixed[0].label } : {}) };
}

const secs = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : 'never');

/** The panel as a markdown table. */
export function printPanel(p: TimeToQualityPanel): void {
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

/** The panel's seed-mean curves as an SVG chart. */
export function plot(p: TimeToQualityPanel, settings: readonly StoredSetting[], seeds: readonly number[], real: boolean): string {
  const series = settings
    .filter((s) => onSeeds(s, seeds).length > 0)
    .map((s) => {
      const runs = onSeeds(s, seeds);
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

