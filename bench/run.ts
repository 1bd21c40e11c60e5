// `npm run bench`: the side-by-side benchmark of schedules on the demo task. Parts (all by
// default, or pick with --part real|sim|seeds|policy|ties|overhead; --seeds N):
//   real      real time, metric call ~20 ms, reflection ~100 ms (x U(0.5, 1.5)), W = 16, 1,500 calls
//   sim       simulated time at the paper's scale: valset 100, 5,000 calls, W = 512 and W = 64,
//             reflection 10x a metric call
//   seeds     the real-time workload replayed in simulated time over many seeds (--many N, default
//             48): the quality columns with a standard error small enough to rank the settings
//   policy    each slot order (finish-first, start-first, fifo) on the real-time workload in
//             simulated time, 24 seeds
//   ties      each tie order of dominated removal (newest-survives, oldest-survives) on the
//             real-time workload in simulated time, single, 4x1 and async 8, 48 seeds (--many N)
//   overhead  zero-latency work (a toy task and the demo task): metric calls per second through
//             the full actor path
// Prints tables and writes JSON under bench/results/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { benchRun, SETTINGS, type RunFigures, type Workload } from './benchTask.js';
import { measureOverhead } from './overhead.js';
import { formatTable, summarize } from './table.js';
import { compareTieOrders, formatTieOrderTable } from './tieOrderTable.js';
import type { TieOrder } from '../src/settingValues.js';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const part = flag('--part') ?? 'all';
/** Seeds 0 .. n - 1. */
const seedRange = (n: number) => Array.from({ length: n }, (_, i) => i);
const seeds = seedRange(Number(flag('--seeds') ?? 3));
const resultsDir = new URL('./results/', import.meta.url);
mkdirSync(resultsDir, { recursive: true });

function save(name: string, data: unknown): void {
  writeFileSync(new URL(`${name}.json`, resultsDir), `${JSON.stringify(data, null, 2)}\n`);
}

async function sweep(title: string, workload: Workload, settings = SETTINGS, seedList = seeds): Promise<RunFigures[]> {
  const runs: RunFigures[] = [];
  for (const setting of settings) {
    for (const seed of seedList) {
      const run = await benchRun(setting, seed, workload);
      runs.push(run);
      process.stderr.write(`  ${title}: ${setting.label} seed ${seed}: ${(run.wallClockMs / 1000).toFixed(2)} s, best ${run.bestValScore.toFixed(3)}\n`);
    }
  }
  return runs;
}

function report(title: string, workload: Workload, runs: RunFigures[], seedList = seeds) {
  const rows = summarize(runs);
  const seedText = seedList.length > 5 ? `${seedList[0]}-${seedList[seedList.length - 1]}` : seedList.join(', ');
  console.log(`\n## ${title}\n${JSON.stringify(workload)}; means over seeds ${seedText}\n`);
  console.log(formatTable(rows));
  return { workload, seeds: seedList, rows, runs };
}

const REAL: Workload = { metricCallMs: 20, reflectionMs: 100, workers: 16, budget: 1500, trainSize: 60, valSize: 30, testSize: 60, simulated: false };
const PAPER = (workers: number): Workload => ({
  metricCallMs: 2_000,
  reflectionMs: 20_000,
  workers,
  budget: 5_000,
  trainSize: 100,
  valSize: 100,
  testSize: 168,
  simulated: true,
});

// First: a fresh heap, not one grown by hundreds of runs of the other parts.
if (part === 'all' || part === 'overhead') {
  const figures = [];
  const schedules = [
    { schedule: { kind: 'async', inFlight: 16 } as const, label: 'async 16' },
    { schedule: { kind: 'batched', parents: 8, perParent: 1 } as const, label: '8x1' },
  ];
  for (const task of ['keyword', 'demo'] as const) {
    for (const valsetSize of [100, 20]) {
      for (const s of schedules) {
        const f = await measureOverhead({ task, ...s, budget: 20_000, workers: 16, valsetSize });
        process.stderr.write(`  overhead: ${task} ${s.label} valset ${valsetSize}: ${Math.round(f.metricCallsPerSecond)} calls/s\n`);
        figures.push(f);
      }
    }
  }
  console.log('\n## Orchestration overhead (zero-latency adapter and LM, CPU time, one core; 5 warm runs)\n');
  console.log('| task | schedule | valset | metric calls | proposals | metric calls/s, best run | median run | cold run |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|');
  const rate = (x: number) => Math.round(x).toLocaleString('en-US');
  for (const f of figures) {
    console.log(`| ${f.task} | ${f.schedule} | ${f.valsetSize} | ${f.metricCalls} | ${f.proposals} | ${rate(f.bestMetricCallsPerSecond)} | ${rate(f.metricCallsPerSecond)} | ${rate(f.coldMetricCallsPerSecond)} |`);
  }
  save('overhead', figures);
}
if (part === 'all' || part === 'real') {
  save('real-time', report('Real time, demo task, W = 16, 1,500 metric calls', REAL, await sweep('real', REAL)));
}
if (part === 'all' || part === 'seeds') {
  const many = seedRange(Number(flag('--many') ?? 48));
  const workload = { ...REAL, simulated: true };
  const runs = await sweep('seeds', workload, SETTINGS, many);
  // Per-run figures of 480 runs would be most of the file; the rows and per-seed scores suffice.
  const { rows } = report(`The real-time workload in simulated time, ${many.length} seeds`, workload, runs, many);
  const perSeed = runs.map(({ setting, seed, wallClockMs, bestValScore, testScore, stalenessMean }) => ({ setting, seed, wallClockMs, bestValScore, testScore, stalenessMean }));
  save('many-seeds', { workload, seeds: many, rows, runs: perSeed });
}
if (part === 'all' || part === 'sim') {
  for (const w of [512, 64]) {
    save(`simulated-w${w}`, report(`Simulated time, paper scale, W = ${w}`, PAPER(w), await sweep(`sim W=${w}`, PAPER(w))));
  }
}
if (part === 'all' || part === 'policy') {
  // The real-time workload in simulated time, where W = 16 slots are contended, over 24 seeds:
  // the orders' differences in quality are a few hundredths, too small to see on 3 seeds.
  const picked = SETTINGS.filter((s) => ['single', '4x4', 'async 8', 'async 16'].includes(s.label));
  const policySeeds = seedRange(24);
  const out: Record<string, unknown> = {};
  for (const slotPolicy of ['finish-first', 'start-first', 'fifo'] as const) {
    const workload = { ...REAL, simulated: true, slotPolicy };
    const runs = await sweep(`policy ${slotPolicy}`, workload, picked, policySeeds);
    const { rows } = report(`Slot order '${slotPolicy}', the real-time workload in simulated time`, workload, runs, policySeeds);
    out[slotPolicy] = { workload, seeds: policySeeds, rows };
  }
  save('slot-policy', out);
}
if (part === 'all' || part === 'ties') {
  // One task's workload and settings as data: a second task adds an entry here (or a --task flag picks one).
  const tieStudy = {
    name: 'demo',
    workload: { ...REAL, simulated: true },
    settings: SETTINGS.filter((s) => ['single', '4x1', 'async 8'].includes(s.label)),
    seeds: seedRange(Number(flag('--many') ?? 48)),
  };
  const orders: TieOrder[] = ['oldest-survives', 'newest-survives'];
  const runs = {} as Record<TieOrder, RunFigures[]>;
  const out: Record<string, unknown> = { task: tieStudy.name, seeds: tieStudy.seeds };
  for (const tieOrder of orders) {
    const workload = { ...tieStudy.workload, tieOrder };
    runs[tieOrder] = await sweep(`ties ${tieOrder}`, workload, tieStudy.settings, tieStudy.seeds);
    const { rows } = report(`Tie order '${tieOrder}', ${tieStudy.name} task, the real-time workload in simulated time`, workload, runs[tieOrder], tieStudy.seeds);
    const perSeed = runs[tieOrder].map(({ setting, seed, bestValScore, testScore, bestLineageDepth, candidates }) => ({ setting, seed, bestValScore, testScore, bestLineageDepth, candidates }));
    out[tieOrder] = { workload, rows, runs: perSeed };
  }
  const comparison = compareTieOrders(runs);
  console.log(`\n## Tie order, ${tieStudy.name} task: means ± standard error over ${tieStudy.seeds.length} seeds\n`);
  console.log(formatTieOrderTable(comparison));
  save('ties', { ...out, comparison });
}
