// The async issue's mechanism table: each mechanism against stale lineages, alone and combined,
// on the real-time workload in simulated time (W = 16, 1,500 metric calls, metric call ~20 ms,
// reflection ~100 ms, each x U(0.5, 1.5)), paired with single on the same seed.
//
//   npx tsx bench/mechanisms.ts run <variant...> [--seeds 48] [--from 0] [--task demo]   runs and stores per-seed figures (seeds from..from+seeds-1)
//   npx tsx bench/mechanisms.ts table [--task demo] [--versus single]         prints the table of what is stored
//   (both take --dir <folder> to keep a longer seed range apart, e.g. --dir demo-96-seeds;
//   run takes --val-size and --train-size for other set sizes, stored with the runs: use their own --dir)
//   npx tsx bench/mechanisms.ts list                                          names the variants
//   npx tsx bench/mechanisms.ts goal                                          the async issues' acceptance, on what is stored
//
// Each variant's runs go to bench/results/mechanisms/<task>/<variant>.json, so variants can be run
// in separate processes (two cores: two at a time) and the table read from what is there.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { benchRun, timeToReach, type RunFigures } from './benchTask.js';
import { VARIANTS, WORKLOAD } from './mechanismVariants.js';
import { mean, median, signedMean, standardError } from './table.js';
import { benchArgs } from './cliArgs.js';

const { flag, positional } = benchArgs();
const [command = 'table', ...names] = positional;
const task = flag('--task', 'demo');
// --dir: another folder for the same task (e.g. demo-96-seeds), so a longer seed range does not mix with the 48-seed table.
const dir = new URL(`./results/mechanisms/${flag('--dir', task)}/`, import.meta.url);
// --versus: the variant every other is paired with (default single; e.g. 'single current-best').
const versus = flag('--versus', 'single');
const fileOf = (variant: string) => new URL(`${variant.replaceAll(' ', '_')}.json`, dir);
// Other set sizes than the workload's (a spot check of how a mechanism's cost scales with them).
const workload = { ...WORKLOAD, valSize: Number(flag('--val-size', String(WORKLOAD.valSize))), trainSize: Number(flag('--train-size', String(WORKLOAD.trainSize))) };

type Stored = Pick<RunFigures, 'seed' | 'wallClockMs' | 'metricCalls' | 'bestValScore' | 'testScore' | 'bestLineageDepth' | 'candidates' | 'stalenessMean' | 'discoveries'>;

async function run(variant: string, seeds: number, from: number): Promise<void> {
  const v = VARIANTS[variant];
  if (!v) throw new Error(`unknown variant '${variant}'; list them with: npx tsx bench/mechanisms.ts list`);
  const runs: Stored[] = [];
  for (let seed = from; seed < from + seeds; seed++) {
    const r = await benchRun({ label: variant, schedule: v.schedule, ...(v.options ? { options: v.options } : {}) }, seed, { ...workload, task });
    const { wallClockMs, metricCalls, bestValScore, testScore, bestLineageDepth, candidates, stalenessMean, discoveries } = r;
    runs.push({ seed, wallClockMs, metricCalls, bestValScore, testScore, bestLineageDepth, candidates, stalenessMean, discoveries });
    process.stderr.write(`  ${variant} seed ${seed}: best ${bestValScore.toFixed(3)} test ${testScore.toFixed(3)} depth ${bestLineageDepth}\n`);
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(fileOf(variant), `${JSON.stringify({ variant, ...v, task, workload, runs })}\n`);
}

function table(): void {
  const stored = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(new URL(f, dir), 'utf8')) as { variant: string; about: string; workload?: typeof WORKLOAD; runs: Stored[] });
  const order = Object.keys(VARIANTS);
  stored.sort((a, b) => order.indexOf(a.variant) - order.indexOf(b.variant));
  const single = stored.find((s) => s.variant === versus);
  if (!single) throw new Error(`run the '${versus}' variant first: it is what every other is paired with`);
  const base = new Map(single.runs.map((r) => [r.seed, r]));
  const singleWall = mean(single.runs.map((r) => r.wallClockMs));
  const fmt = (x: number, d = 3) => (x >= 0 ? '+' : '') + x.toFixed(d);
  console.log(`\n## Mechanisms, task '${task}': ${JSON.stringify(single.workload ?? WORKLOAD)}; deltas are paired with ${versus} on the same seed (mean ± standard error)\n`);
  console.log(`| variant | seeds | best val | Δ val vs ${versus} | test | Δ test vs ${versus} | depth | wall-clock | / ${versus} | to 90% of ${versus} (median, reached) | what |`);
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const s of stored) {
    const paired = s.runs.filter((r) => base.has(r.seed));
    const dVal = paired.map((r) => r.bestValScore - (base.get(r.seed) as Stored).bestValScore);
    const dTest = paired.map((r) => r.testScore - (base.get(r.seed) as Stored).testScore);
    const to90 = paired.map((r) => timeToReach({ discoveries: r.discoveries } as RunFigures, 0.9 * (base.get(r.seed) as Stored).bestValScore));
    const wall = mean(s.runs.map((r) => r.wallClockMs));
    const m90 = median(to90);
    console.log(
      `| ${s.variant} | ${s.runs.length} | ${mean(s.runs.map((r) => r.bestValScore)).toFixed(3)} | ${fmt(mean(dVal))} ± ${standardError(dVal).toFixed(3)} | ${mean(s.runs.map((r) => r.testScore)).toFixed(3)} | ${fmt(mean(dTest))} ± ${standardError(dTest).toFixed(3)} | ${mean(s.runs.map((r) => r.bestLineageDepth)).toFixed(1)} | ${(wall / 1000).toFixed(2)} s | ${(wall / singleWall).toFixed(2)} | ${Number.isFinite(m90) ? `${(m90 / 1000).toFixed(2)} s` : 'never'} (${to90.filter(Number.isFinite).length}/${paired.length}) | ${s.about} |`,
    );
  }
}

// The async issues' acceptance, read from every stored folder of every task: each comparison on
// the folder that pairs the most seeds of the two variants (a 144-seed folder beats a 48-seed one).
// Today's: async 8 at the defaults within 0.01 of single on val and test, at 40% of its wall-clock
// or less, on every bench task (the fact-gathering task's issue; the first asked 0.02 and a third).
const DEFAULT_ASYNC = 'async 8 rebase best where-it-helped wait-launched';
const TOLERANCE = 0.01;
const WALL_SHARE = 0.4;
const BATCHED = ['2x1', '2x2', '4x1', '2x4', '8x1', '4x4'];

function storedRuns(taskName: string): Array<Map<string, Stored[]>> {
  const root = new URL('./results/mechanisms/', import.meta.url);
  return readdirSync(root)
    .filter((d) => d === taskName || d.startsWith(`${taskName}-`))
    .map((d) => {
      const folder = new URL(`${d}/`, root);
      return new Map(
        readdirSync(folder)
          .filter((f) => f.endsWith('.json'))
          .map((f) => JSON.parse(readFileSync(new URL(f, folder), 'utf8')) as { variant: string; runs: Stored[] })
          .map((v) => [v.variant, v.runs] as const),
      );
    });
}

/** a's and b's runs on their common seeds, from the folder with the most of them. */
function widestPairing(folders: Array<Map<string, Stored[]>>, a: string, b: string): Array<[Stored, Stored]> {
  let best: Array<[Stored, Stored]> = [];
  for (const f of folders) {
    const bySeed = new Map((f.get(b) ?? []).map((r) => [r.seed, r]));
    const pairs = (f.get(a) ?? []).flatMap((r): Array<[Stored, Stored]> => (bySeed.has(r.seed) ? [[r, bySeed.get(r.seed) as Stored]] : []));
    if (pairs.length > best.length) best = pairs;
  }
  return best;
}

function goal(): void {
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const fmt = signedMean;
  for (const taskName of ['demo', 'multistep', 'hotel']) {
    const folders = storedRuns(taskName);
    // Single as measured for the async issue, and single at today's batched default tie order.
    for (const single of ['single', 'single newest-survives']) {
      const vsSingle = widestPairing(folders, DEFAULT_ASYNC, single);
      if (vsSingle.length === 0) continue;
      const dVal = vsSingle.map(([a, s]) => a.bestValScore - s.bestValScore);
      const dTest = vsSingle.map(([a, s]) => a.testScore - s.testScore);
      const wall = mean(vsSingle.map(([a]) => a.wallClockMs)) / mean(vsSingle.map(([, s]) => s.wallClockMs));
      const close = mean(dVal) >= -TOLERANCE && mean(dTest) >= -TOLERANCE && wall <= WALL_SHARE;
      console.log(`${taskName}: ${DEFAULT_ASYNC} vs ${single} over ${vsSingle.length} seeds: val ${fmt(dVal)}, test ${fmt(dTest)}, wall-clock ${wall.toFixed(2)} of single's: ${verdict(close)}`);
    }
    // Sooner to 90% of single's final score than each batched setting (medians), at no lower test score.
    const singles = new Map(widestPairing(folders, 'single', 'single').map(([s]) => [s.seed, s]));
    const to90 = (r: Stored) => timeToReach({ discoveries: r.discoveries } as RunFigures, 0.9 * (singles.get(r.seed)?.bestValScore ?? Infinity));
    for (const b of BATCHED) {
      const pairs = widestPairing(folders, DEFAULT_ASYNC, b).filter(([a]) => singles.has(a.seed));
      if (pairs.length === 0) continue;
      const asyncTo90 = median(pairs.map(([a]) => to90(a)));
      const batchedTo90 = median(pairs.map(([, r]) => to90(r)));
      const dTestB = pairs.map(([a, r]) => a.testScore - r.testScore);
      const ok = asyncTo90 < batchedTo90 && mean(dTestB) >= 0;
      const secs = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : 'never');
      console.log(`  vs ${b} over ${pairs.length} seeds: to 90% ${secs(asyncTo90)} against ${secs(batchedTo90)}, test ${fmt(dTestB)}: ${verdict(ok)}`);
    }
  }
}

if (command === 'goal') goal();
else if (command === 'list') for (const [name, v] of Object.entries(VARIANTS)) console.log(`${name}: ${v.about}`);
else if (command === 'run') for (const name of names) await run(name, Number(flag('--seeds', '48')), Number(flag('--from', '0')));
else table();
