// Aggregates benchmark runs per setting (means over seeds) and prints them as a table.
import { timeToReach, type RunFigures } from './benchTask.js';

export interface SettingSummary {
  setting: string;
  seeds: number;
  wallClockMs: number;
  speedup: number;
  metricCalls: number;
  bestValScore: number;
  testScore: number;
  utilization: number;
  /** Mean over seeds of the time to reach 90% of single's final valset score on the same seed (Infinity if a seed never did). */
  timeTo90Ms: number;
  /** Seeds that reached it. */
  reached90: number;
  /** Median over seeds of that time (Infinity unless more than half the seeds got there). */
  medianTo90Ms: number;
  predictedMs: number;
  /** (predicted - measured) / measured, of the means. */
  predictionError: number;
  acceptanceRate: number;
  /** Means over seeds of each run's mean and p90 staleness. */
  stalenessMean: number;
  stalenessP90: number;
  /** Mean over seeds of the best candidate's lineage depth. */
  bestLineageDepth: number;
}

export const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The standard error of the mean over seeds. */
export function standardError(xs: readonly number[]): number {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1) / xs.length);
}

/** A paired difference as the tables print it: "+0.012 ± 0.005". */
export const signedMean = (xs: readonly number[]): string => `${mean(xs) >= 0 ? '+' : ''}${mean(xs).toFixed(3)} ± ${standardError(xs).toFixed(3)}`;
/** The upper middle value (so a median time to a score is finite only when more than half the seeds got there). */
export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

export function summarize(runs: RunFigures[], baseline = 'single'): SettingSummary[] {
  const settings = [...new Set(runs.map((r) => r.setting))];
  const of = (s: string) => runs.filter((r) => r.setting === s);
  const base = of(baseline);
  // The same seed is the same task instance: compare each run with single on its own seed.
  const targetFor = (seed: number) => 0.9 * (base.find((b) => b.seed === seed)?.bestValScore ?? Infinity);
  const baseWall = mean(base.map((r) => r.wallClockMs));
  return settings.map((setting) => {
    const rs = of(setting);
    const wall = mean(rs.map((r) => r.wallClockMs));
    const predicted = mean(rs.map((r) => r.predictedMs));
    const times = rs.map((r) => timeToReach(r, targetFor(r.seed)));
    return {
      setting,
      seeds: rs.length,
      wallClockMs: wall,
      speedup: baseWall / wall,
      metricCalls: mean(rs.map((r) => r.metricCalls)),
      bestValScore: mean(rs.map((r) => r.bestValScore)),
      testScore: mean(rs.map((r) => r.testScore)),
      utilization: mean(rs.map((r) => r.utilization)),
      timeTo90Ms: mean(times),
      reached90: times.filter(Number.isFinite).length,
      medianTo90Ms: median(times),
      predictedMs: predicted,
      predictionError: (predicted - wall) / wall,
      acceptanceRate: mean(rs.map((r) => r.acceptanceRate)),
      stalenessMean: mean(rs.map((r) => r.stalenessMean)),
      stalenessP90: mean(rs.map((r) => r.stalenessP90)),
      bestLineageDepth: mean(rs.map((r) => r.bestLineageDepth)),
    };
  });
}

const seconds = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(ms >= 100_000 ? 0 : 2)} s` : 'never');

export function formatTable(rows: SettingSummary[]): string {
  const header = ['setting', 'wall-clock', 'speedup', 'calls', 'best val', 'test', 'util', 'to 90% of single', 'predicted', 'pred err', 'accept', 'staleness', 'depth'];
  const lines = rows.map((r) => [
    r.setting,
    seconds(r.wallClockMs),
    `${r.speedup.toFixed(2)}x`,
    r.metricCalls.toFixed(0),
    r.bestValScore.toFixed(3),
    r.testScore.toFixed(3),
    `${(100 * r.utilization).toFixed(0)}%`,
    r.reached90 === r.seeds ? seconds(r.timeTo90Ms) : `${r.reached90}/${r.seeds} seeds, median ${seconds(r.medianTo90Ms)}`,
    seconds(r.predictedMs),
    `${r.predictionError >= 0 ? '+' : ''}${(100 * r.predictionError).toFixed(0)}%`,
    r.acceptanceRate.toFixed(2),
    r.stalenessMean > 0 ? `${r.stalenessMean.toFixed(1)} (p90 ${r.stalenessP90.toFixed(0)})` : '0',
    r.bestLineageDepth.toFixed(1),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] as string).length)));
  const row = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  return [row(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.map(row)].join('\n');
}
