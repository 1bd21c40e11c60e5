// Issue 39, goal 3: async children decided in launch order, at what speed (bench/README.md, "A fifth round"). Reads the per-seed runs
// bench/mechanisms.ts stored and prints, per task and budget, each variant's quality against
// 'launched-before' and single, its wall-clock against deciding at once ('none'), and the time
// it takes to reach single's final best valset score as a multiple of the floor (every one of
// the W slots busy for the whole budget: calls x metric call ms / W). Writes bench/results/held-slots.json
// (held-slots-<n>-seeds.json with --seeds n other than 24; variants stored with fewer seeds count those).
//
//   npx tsx bench/heldSlotTable.ts [--seeds 24]
import { readFileSync, writeFileSync } from 'node:fs';
import { timeToReach, type RunFigures } from './benchTask.js';
import { WORKLOAD } from './mechanismVariants.js';
import { mean, median, signedMean } from './table.js';
import { benchArgs } from './cliArgs.js';

const { flag } = benchArgs();
const SEEDS = Number(flag('--seeds', '24'));
const WITHIN = 1.2;

type Stored = Pick<RunFigures, 'seed' | 'wallClockMs' | 'metricCalls' | 'bestValScore' | 'testScore' | 'discoveries'>;

/** One table: a task at a budget, the variants' stored names, and which of them are the references. */
interface Cell {
  task: string;
  budget: number;
  single: string;
  none?: string;
  launched: string;
  variants: string[];
}

const at = (name: string, budget: number) => (budget === WORKLOAD.budget ? name : `${name} ${budget} calls`);
const FULL = [
  'async 8 wait-launched gate-ahead',
  'async 8 wait-launched gate-ahead newcomer-only',
  'async 8 wait-launched gate-ahead predicted',
  'async 8 wait-launched gate-ahead free-slot',
  'async 8 wait-launched gate-ahead newcomer-only free-slot',
  'async 8 wait-launched free-slot', 'async 8 wait-launched free-slot at finish', 'async 8 wait-launched free-slot ceiling 1.5', 'async 8 wait-launched free-slot ceiling 4',
  ...sixthRound(WORKLOAD.budget)];
/** The sixth round's variants at a budget (bench/README.md, "A sixth round"). */
function sixthRound(budget: number): string[] {
  if (budget === 300) return [at('async 8 wait-launched gate-ahead free-early', budget)];
  return ['async 8 wait-launched gate-ahead free-early', 'async 8 wait-launched gate-ahead free-early 8', 'async 8 wait-launched gate-ahead free-early 24', 'async 8 wait-launched gate-ahead free-early 32', 'async 8 wait-launched free-early', 'async 8 wait-launched gate-ahead plus unasked calls'].map((v) => at(v, budget));
}
const CELLS: Cell[] = [
  ...['demo', 'multistep', 'hotel'].map((task): Cell => ({ task, budget: 1500, single: 'single', none: 'async 8 rebase best where-it-helped', launched: 'async 8 rebase best where-it-helped wait-launched', variants: FULL })),
  ...[4, 16].flatMap((k) =>
    ['demo', 'multistep', 'hotel'].map((task): Cell => ({ task, budget: 1500, single: 'single', none: `async ${k} rebase best where-it-helped`, launched: `async ${k} rebase best where-it-helped wait-launched`, variants: [`async ${k} wait-launched gate-ahead`, `async ${k} wait-launched gate-ahead free-early`] })),
  ),
  ...['demo', 'multistep'].map((task): Cell => ({
    task,
    budget: 750,
    single: at('single', 750),
    none: at('async 8 rebase best where-it-helped', 750),
    launched: at('async 8 rebase best where-it-helped wait-launched', 750),
    variants: [at('async 8 wait-launched gate-ahead', 750), at('async 8 wait-launched gate-ahead free-slot', 750), ...sixthRound(750)],
  })),
  ...[750, 300].map((budget): Cell => ({
    task: 'hotel',
    budget,
    single: at('single', budget),
    none: at('async 8 rebase best where-it-helped', budget),
    launched: at('async 8 rebase best where-it-helped wait-launched', budget),
    variants: [at('async 8 wait-launched gate-ahead', budget), at('async 8 wait-launched gate-ahead free-slot', budget), at('async 8 wait-launched gate-ahead newcomer-only', budget), at('async 8 wait-launched gate-ahead predicted', budget), at('async 8 wait-launched free-slot', budget), at('async 8 wait-launched free-slot ceiling 1.5', budget), ...sixthRound(budget)],
  })),
];

function load(task: string, variant: string): Map<number, Stored> | undefined {
  try {
    const runs = (JSON.parse(readFileSync(new URL(`./results/mechanisms/${task}/${variant.replaceAll(' ', '_')}.json`, import.meta.url), 'utf8')) as { runs: Stored[] }).runs;
    return new Map(runs.filter((r) => r.seed < SEEDS).map((r) => [r.seed, r]));
  } catch {
    return undefined;
  }
}

const rows: Array<Record<string, unknown>> = [];
for (const cell of CELLS) {
  const single = load(cell.task, cell.single);
  const launched = load(cell.task, cell.launched);
  const none = cell.none ? load(cell.task, cell.none) : undefined;
  if (!single || !launched) continue;
  const floorMs = (cell.budget * WORKLOAD.metricCallMs) / WORKLOAD.workers;
  console.log(`\n${cell.task}, ${cell.budget} calls, ${cell.launched.split(' rebase')[0]} (floor ${(floorMs / 1000).toFixed(2)} s), seeds 0-${SEEDS - 1}; Δ paired on the seed (mean ± standard error)\n`);
  console.log("| variant | Δ val vs 'launched-before' | Δ test vs 'launched-before' | Δ val vs single | Δ test vs single | wall / single | wall / 'none' | to single's final best, x floor (median) | seeds within 1.2x |");
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const variant of [cell.none, cell.launched, ...cell.variants].filter((v): v is string => v !== undefined)) {
    const runs = load(cell.task, variant);
    if (!runs) continue;
    const seeds = [...runs.keys()].filter((s) => single.has(s) && launched.has(s));
    const pick = (m: Map<number, Stored>, s: number) => m.get(s) as Stored;
    const d = (of: (r: Stored) => number, ref: Map<number, Stored>) => seeds.map((s) => of(pick(runs, s)) - of(pick(ref, s)));
    const wall = mean(seeds.map((s) => pick(runs, s).wallClockMs));
    const reach = seeds.map((s) => timeToReach({ discoveries: pick(runs, s).discoveries } as RunFigures, pick(single, s).bestValScore) / floorMs);
    const row = {
      task: cell.task,
      inFlight: Number(variant.split(' ')[1]),
      budget: cell.budget,
      variant,
      seeds: seeds.length,
      dValLaunched: mean(d((r) => r.bestValScore, launched)),
      dTestLaunched: mean(d((r) => r.testScore, launched)),
      dValSingle: mean(d((r) => r.bestValScore, single)),
      dTestSingle: mean(d((r) => r.testScore, single)),
      wallOverSingle: wall / mean(seeds.map((s) => pick(single, s).wallClockMs)),
      wallOverNone: none ? wall / mean(seeds.map((s) => pick(none, s)?.wallClockMs ?? NaN)) : null,
      reachMedianFloors: median(reach),
      seedsWithin: reach.filter((x) => x <= WITHIN).length,
    };
    rows.push(row);
    const x = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)}x` : 'never');
    console.log(
      `| ${variant} | ${signedMean(d((r) => r.bestValScore, launched))} | ${signedMean(d((r) => r.testScore, launched))} | ${signedMean(d((r) => r.bestValScore, single))} | ${signedMean(d((r) => r.testScore, single))} | ${row.wallOverSingle.toFixed(3)} | ${row.wallOverNone === null ? '' : row.wallOverNone.toFixed(3)} | ${x(row.reachMedianFloors)} | ${row.seedsWithin}/${seeds.length} |`,
    );
  }
}
writeFileSync(new URL(SEEDS === 24 ? './results/held-slots.json' : `./results/held-slots-${SEEDS}-seeds.json`, import.meta.url), `${JSON.stringify({ seeds: SEEDS, within: WITHIN, workload: WORKLOAD, rows }, null, 1)}\n`);
