// Checks the benchmark's acceptance figures against the committed results in bench/results/
// (run `npm run bench` first to refresh them) and prints each with its verdict:
//   - async 8 reaches 90% of single's final valset score >= 1.5x sooner than the best batched
//     setting, at no lower held-out test score (means over the seeds; also on the 48-seed replay);
//   - utilization >= 85% for async 8 and async 16 in the real-time run;
//   - predicted wall-clock within 15% of measured for every batched setting;
//   - >= 25,000 metric calls/s through the actor path with zero-latency work.
// `npx tsx bench/acceptance.ts`
import { readFileSync } from 'node:fs';
import type { SettingSummary } from './table.js';

interface Results {
  rows: SettingSummary[];
}

const read = <T>(name: string): T => JSON.parse(readFileSync(new URL(`./results/${name}.json`, import.meta.url), 'utf8')) as T;
// JSON has no Infinity: a time that was never reached is stored as null. A mean over seeds is
// 'never' when one seed never got there; a median when more than half did not.
const finite = (x: number | null): number => (x === null ? Infinity : x);
const seconds = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : 'never');
const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
const isBatched = (r: SettingSummary) => !r.setting.startsWith('async');

function soonerCheck(title: string, rows: SettingSummary[]): string[] {
  const async8 = rows.find((r) => r.setting === 'async 8') as SettingSummary;
  const batched = rows.filter(isBatched).filter((r) => r.setting !== 'single');
  const byMean = [...batched].sort((a, b) => finite(a.timeTo90Ms) - finite(b.timeTo90Ms) || finite(a.medianTo90Ms) - finite(b.medianTo90Ms));
  const best = byMean[0] as SettingSummary;
  const ratio = finite(best.timeTo90Ms) / finite(async8.timeTo90Ms);
  const ok = Number.isFinite(async8.timeTo90Ms) && ratio >= 1.5 && async8.testScore >= best.testScore;
  return [
    `${title}: ${verdict(ok)}`,
    `  async 8: to 90% of single, mean ${seconds(finite(async8.timeTo90Ms))} (reached on ${async8.reached90}/${async8.seeds} seeds, median ${seconds(finite(async8.medianTo90Ms))}), test ${async8.testScore.toFixed(3)}`,
    `  best batched, ${best.setting}: mean ${seconds(finite(best.timeTo90Ms))} (${best.reached90}/${best.seeds} seeds, median ${seconds(finite(best.medianTo90Ms))}), test ${best.testScore.toFixed(3)}`,
  ];
}

const real = read<Results>('real-time');
const many = read<Results>('many-seeds');
const overhead = read<Array<{ task: string; schedule: string; valsetSize: number; bestMetricCallsPerSecond: number; metricCallsPerSecond: number }>>('overhead');

const lines: string[] = [];
lines.push(...soonerCheck('Async 8 >= 1.5x sooner to 90% of single, no lower test (real time, seeds 0-2)', real.rows));
lines.push(...soonerCheck('The same on the 48-seed replay in simulated time', many.rows));

const util = ['async 8', 'async 16'].map((s) => real.rows.find((r) => r.setting === s) as SettingSummary);
lines.push(`Utilization >= 85% for async 8 and 16 (real time): ${verdict(util.every((r) => r.utilization >= 0.85))}`);
for (const r of util) lines.push(`  ${r.setting}: ${(100 * r.utilization).toFixed(1)}%`);

const worst = real.rows.filter(isBatched).reduce((w, r) => (Math.abs(r.predictionError) > Math.abs(w.predictionError) ? r : w));
lines.push(`Predicted wall-clock within 15% for every batched setting (real time): ${verdict(Math.abs(worst.predictionError) <= 0.15)}`);
lines.push(`  worst: ${worst.setting}, ${(100 * worst.predictionError).toFixed(1)}%`);

const slowest = overhead.reduce((w, f) => (f.bestMetricCallsPerSecond < w.bestMetricCallsPerSecond ? f : w));
lines.push(`>= 25,000 metric calls/s with zero-latency work, every measured case (best run): ${verdict(slowest.bestMetricCallsPerSecond >= 25_000)}`);
for (const f of overhead) {
  lines.push(`  ${f.task}, ${f.schedule}, valset ${f.valsetSize}: ${Math.round(f.bestMetricCallsPerSecond).toLocaleString('en-US')}/s (median ${Math.round(f.metricCallsPerSecond).toLocaleString('en-US')}/s)${f.bestMetricCallsPerSecond >= 25_000 ? '' : '  <- below'}`);
}
console.log(lines.join('\n'));
