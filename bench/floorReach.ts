// Issue 39's acceptance "async 8 within 1.2x of the floor on at least 20 of 24 seeds" taken
// apart (bench/README.md, "A sixth round"): per task at 1,500 calls and per variant, how many
// seeds ever reach single's final best valset score, how many within 1.2 floors, the whole run
// and the time to the run's own final best as multiples of the floor (calls x metric call ms /
// W), how often single's final best is above the run's own, and the seeds within 1.2x of 99% of
// single's final best (a target a run level with single reaches). Reads bench/mechanisms.ts's runs.
//
//   npx tsx bench/floorReach.ts [--seeds 24]
import { readFileSync, writeFileSync } from 'node:fs';
import { timeToReach, type RunFigures } from './benchTask.js';
import { WORKLOAD } from './mechanismVariants.js';
import { median } from './table.js';
import { benchArgs } from './cliArgs.js';

const { flag } = benchArgs();
const SEEDS = Number(flag('--seeds', '24'));
const WITHIN = 1.2;
type Stored = Pick<RunFigures, 'seed' | 'wallClockMs' | 'bestValScore' | 'discoveries'>;

const VARIANTS = [
  'async 8 rebase best where-it-helped',
  'async 8 rebase best where-it-helped wait-launched',
  'async 8 wait-launched gate-ahead',
  'async 8 wait-launched gate-ahead free-slot',
  'async 8 wait-launched gate-ahead free-early',
];

function load(task: string, variant: string): Map<number, Stored> {
  const runs = (JSON.parse(readFileSync(new URL(`./results/mechanisms/${task}/${variant.replaceAll(' ', '_')}.json`, import.meta.url), 'utf8')) as { runs: Stored[] }).runs;
  return new Map(runs.filter((r) => r.seed < SEEDS).map((r) => [r.seed, r]));
}

const floorMs = (WORKLOAD.budget * WORKLOAD.metricCallMs) / WORKLOAD.workers;
const x = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)}x` : 'never');
const rows: Array<Record<string, unknown>> = [];
console.log(`floor ${(floorMs / 1000).toFixed(2)} s (1,500 calls x 20 ms / 16), seeds 0-${SEEDS - 1}\n`);
console.log("| task | variant | reach single's final best (seeds) | within 1.2x | median to single's best | median whole run | median to its own final best | single's final best above its own (seeds) | within 1.2x of 99% of single's final best |");
console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|');
for (const task of ['demo', 'multistep', 'hotel']) {
  const single = load(task, 'single');
  for (const variant of VARIANTS) {
    const runs = load(task, variant);
    const seeds = [...runs.keys()].filter((s) => single.has(s));
    const at = (s: number) => runs.get(s) as Stored;
    const target = (s: number) => (single.get(s) as Stored).bestValScore;
    const reach = seeds.map((s) => timeToReach(at(s) as RunFigures, target(s)) / floorMs);
    const whole = seeds.map((s) => at(s).wallClockMs / floorMs);
    const own = seeds.map((s) => timeToReach(at(s) as RunFigures, at(s).bestValScore) / floorMs);
    const row = {
      task,
      variant,
      seeds: seeds.length,
      reached: reach.filter(Number.isFinite).length,
      within: reach.filter((r) => r <= WITHIN).length,
      reachMedian: median(reach),
      wholeMedian: median(whole),
      ownFinalMedian: median(own),
      singleAbove: seeds.filter((s) => target(s) > at(s).bestValScore).length,
      within99: seeds.filter((s) => timeToReach(at(s) as RunFigures, 0.99 * target(s)) / floorMs <= WITHIN).length,
    };
    rows.push(row);
    console.log(`| ${task} | ${variant} | ${row.reached}/${row.seeds} | ${row.within}/${row.seeds} | ${x(row.reachMedian)} | ${x(row.wholeMedian)} | ${x(row.ownFinalMedian)} | ${row.singleAbove}/${row.seeds} | ${row.within99}/${row.seeds} |`);
  }
}
writeFileSync(new URL(SEEDS === 24 ? './results/floor-reach.json' : `./results/floor-reach-${SEEDS}-seeds.json`, import.meta.url), `${JSON.stringify({ seeds: SEEDS, within: WITHIN, floorMs, rows }, null, 1)}\n`);
