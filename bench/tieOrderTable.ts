// The tie-order comparison: per setting, each order's mean and standard error over seeds of the
// quality columns (best valset, test, best lineage depth), and the paired difference
// newest - oldest on the same seeds (the same task instance), which is what decides the default.
import type { RunFigures } from './benchTask.js';
type TieOrder = 'newest-survives' | 'oldest-survives';

const METRICS = ['bestValScore', 'testScore', 'bestLineageDepth'] as const;
type Metric = (typeof METRICS)[number];

export interface MeanWithError {
  mean: number;
  /** Standard error of the mean: sample standard deviation / sqrt(n). */
  se: number;
}

export interface TieOrderRow {
  setting: string;
  seeds: number;
  metric: Metric;
  byOrder: Record<TieOrder, MeanWithError>;
  /** newest-survives minus oldest-survives, paired by seed. */
  difference: MeanWithError;
}

export function meanWithError(xs: readonly number[]): MeanWithError {
  const n = xs.length;
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  const variance = n < 2 ? 0 : xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1);
  return { mean, se: Math.sqrt(variance / n) };
}

export function compareTieOrders(runs: Record<TieOrder, RunFigures[]>): TieOrderRow[] {
  const settings = [...new Set(runs['oldest-survives'].map((r) => r.setting))];
  return settings.flatMap((setting) => {
    const oldest = runs['oldest-survives'].filter((r) => r.setting === setting);
    const newest = runs['newest-survives'].filter((r) => r.setting === setting);
    const paired = oldest.flatMap((o) => {
      const n = newest.find((r) => r.seed === o.seed);
      return n ? [[o, n] as const] : [];
    });
    return METRICS.map((metric) => ({
      setting,
      seeds: paired.length,
      metric,
      byOrder: { 'oldest-survives': meanWithError(oldest.map((r) => r[metric])), 'newest-survives': meanWithError(newest.map((r) => r[metric])) },
      difference: meanWithError(paired.map(([o, n]) => n[metric] - o[metric])),
    }));
  });
}

const LABELS: Record<Metric, string> = { bestValScore: 'best val', testScore: 'test', bestLineageDepth: 'best lineage depth' };

export function formatTieOrderTable(rows: TieOrderRow[]): string {
  const digits = (m: Metric) => (m === 'bestLineageDepth' ? 2 : 3);
  const cell = (x: MeanWithError, m: Metric, signed = false) => `${signed && x.mean >= 0 ? '+' : ''}${x.mean.toFixed(digits(m))} ± ${x.se.toFixed(digits(m))}`;
  const lines = [
    '| setting | figure | oldest-survives | newest-survives | newest - oldest (paired) |',
    '|---|---|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.setting} | ${LABELS[r.metric]} | ${cell(r.byOrder['oldest-survives'], r.metric)} | ${cell(r.byOrder['newest-survives'], r.metric)} | ${cell(r.difference, r.metric, true)} |`,
    ),
  ];
  return lines.join('\n');
}
