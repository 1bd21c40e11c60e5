// The async issue's mechanism table: each mechanism against stale lineages, alone and combined,
// on the real-time workload in simulated time (W = 16, 1,500 metric calls, metric call ~20 ms,
// reflection ~100 ms, each x U(0.5, 1.5)), paired with single on the same seed.
//
//   npx tsx bench/mechanisms.ts run <variant...> [--seeds 48] [--task demo]   runs and stores per-seed figures
//   npx tsx bench/mechanisms.ts table [--task demo]                           prints the table of what is stored
//   npx tsx bench/mechanisms.ts list                                          names the variants
//
// Each variant's runs go to bench/results/mechanisms/<task>/<variant>.json, so variants can be run
// in separate processes (two cores: two at a time) and the table read from what is there.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { benchRun, timeToReach, type BenchSetting, type RunFigures, type Workload } from './benchTask.js';
import { median } from './table.js';

const WORKLOAD: Workload = { metricCallMs: 20, reflectionMs: 100, workers: 16, budget: 1500, trainSize: 60, valSize: 30, testSize: 60, simulated: true };

const race = { valsetPolicy: { kind: 'race', chunk: 10, margin: 0 } } as const;

/** Every variant tried, by name: the reference schedules and each mechanism alone and combined. */
export const VARIANTS: Record<string, Omit<BenchSetting, 'label'> & { about: string }> = {
  single: { schedule: { kind: 'batched', parents: 1, perParent: 1 }, about: 'classic GEPA, one proposal at a time' },
  '2x1': { schedule: { kind: 'batched', parents: 2, perParent: 1 }, about: 'the paper, 2 parents x 1' },
  '2x2': { schedule: { kind: 'batched', parents: 2, perParent: 2 }, about: 'the paper, 2 parents x 2' },
  '4x1': { schedule: { kind: 'batched', parents: 4, perParent: 1 }, about: 'the paper, 4 parents x 1' },
  '2x4': { schedule: { kind: 'batched', parents: 2, perParent: 4 }, about: 'the paper, 2 parents x 4' },
  '8x1': { schedule: { kind: 'batched', parents: 8, perParent: 1 }, about: 'the paper, 8 parents x 1' },
  '4x4': { schedule: { kind: 'batched', parents: 4, perParent: 4 }, about: 'the paper, 4 parents x 4' },
  'async 8': { schedule: { kind: 'async', inFlight: 8, rebase: 'off' }, about: 'no mechanism' },
  'async 8 rebase newest-descendant': { schedule: { kind: 'async', inFlight: 8, rebase: 'newest-descendant' }, about: "rebase onto the parent's newest descendant" },
  'async 8 rebase best-descendant': { schedule: { kind: 'async', inFlight: 8, rebase: 'best-descendant' }, about: "rebase onto the parent's best descendant" },
  'async 8 rebase best': { schedule: { kind: 'async', inFlight: 8, rebase: 'best' }, about: 'rebase onto the best of the candidates that joined since the parent was drawn' },
  'async 4 rebase best': { schedule: { kind: 'async', inFlight: 4, rebase: 'best' }, about: 'the same, K = 4' },
  'async 16 rebase best': { schedule: { kind: 'async', inFlight: 16, rebase: 'best' }, about: 'the same, K = 16' },
  'async 8 in-flight': { schedule: { kind: 'async', inFlight: 8, rebase: 'off', parentWeighting: 'in-flight' }, about: 'parent weight 1 / (1 + children in flight)' },
  'async 8 rebase best in-flight': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', parentWeighting: 'in-flight' }, about: 'rebase onto the best, and in-flight parent weighting' },
  'single race': { schedule: { kind: 'batched', parents: 1, perParent: 1 }, options: race, about: 'valset race (chunks of 10, margin 0)' },
  '4x1 race': { schedule: { kind: 'batched', parents: 4, perParent: 1 }, options: race, about: 'valset race' },
  'async 8 race': { schedule: { kind: 'async', inFlight: 8, rebase: 'off' }, options: race, about: 'valset race alone' },
  'async 8 rebase best race': { schedule: { kind: 'async', inFlight: 8, rebase: 'best' }, options: race, about: 'rebase onto the best, and the valset race' },
};

const args = process.argv.slice(2);
const flag = (name: string, fallback: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? (args[i + 1] as string) : fallback;
};
const positional = args.filter((a, i) => !a.startsWith('--') && !(args[i - 1] ?? '').startsWith('--'));
const [command = 'table', ...names] = positional;
const task = flag('--task', 'demo');
const dir = new URL(`./results/mechanisms/${task}/`, import.meta.url);
const fileOf = (variant: string) => new URL(`${variant.replaceAll(' ', '_')}.json`, dir);

type Stored = Pick<RunFigures, 'seed' | 'wallClockMs' | 'metricCalls' | 'bestValScore' | 'testScore' | 'bestLineageDepth' | 'candidates' | 'stalenessMean' | 'discoveries'>;

async function run(variant: string, seeds: number): Promise<void> {
  const v = VARIANTS[variant];
  if (!v) throw new Error(`unknown variant '${variant}'; list them with: npx tsx bench/mechanisms.ts list`);
  const runs: Stored[] = [];
  for (let seed = 0; seed < seeds; seed++) {
    const r = await benchRun({ label: variant, schedule: v.schedule, ...(v.options ? { options: v.options } : {}) }, seed, { ...WORKLOAD, task });
    const { wallClockMs, metricCalls, bestValScore, testScore, bestLineageDepth, candidates, stalenessMean, discoveries } = r;
    runs.push({ seed, wallClockMs, metricCalls, bestValScore, testScore, bestLineageDepth, candidates, stalenessMean, discoveries });
    process.stderr.write(`  ${variant} seed ${seed}: best ${bestValScore.toFixed(3)} test ${testScore.toFixed(3)} depth ${bestLineageDepth}\n`);
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(fileOf(variant), `${JSON.stringify({ variant, ...v, task, workload: WORKLOAD, runs })}\n`);
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const stderr = (xs: readonly number[]) => {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1) / xs.length);
};

function table(): void {
  const stored = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(new URL(f, dir), 'utf8')) as { variant: string; about: string; runs: Stored[] });
  const order = Object.keys(VARIANTS);
  stored.sort((a, b) => order.indexOf(a.variant) - order.indexOf(b.variant));
  const single = stored.find((s) => s.variant === 'single');
  if (!single) throw new Error('run the single variant first: it is what every other is paired with');
  const base = new Map(single.runs.map((r) => [r.seed, r]));
  const singleWall = mean(single.runs.map((r) => r.wallClockMs));
  const fmt = (x: number, d = 3) => (x >= 0 ? '+' : '') + x.toFixed(d);
  console.log(`\n## Mechanisms, task '${task}': ${JSON.stringify(WORKLOAD)}; deltas are paired with single on the same seed (mean ± standard error)\n`);
  console.log('| variant | seeds | best val | Δ val vs single | test | Δ test vs single | depth | wall-clock | / single | to 90% of single (median, reached) | what |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const s of stored) {
    const paired = s.runs.filter((r) => base.has(r.seed));
    const dVal = paired.map((r) => r.bestValScore - (base.get(r.seed) as Stored).bestValScore);
    const dTest = paired.map((r) => r.testScore - (base.get(r.seed) as Stored).testScore);
    const to90 = paired.map((r) => timeToReach({ discoveries: r.discoveries } as RunFigures, 0.9 * (base.get(r.seed) as Stored).bestValScore));
    const wall = mean(s.runs.map((r) => r.wallClockMs));
    const m90 = median(to90);
    console.log(
      `| ${s.variant} | ${s.runs.length} | ${mean(s.runs.map((r) => r.bestValScore)).toFixed(3)} | ${fmt(mean(dVal))} ± ${stderr(dVal).toFixed(3)} | ${mean(s.runs.map((r) => r.testScore)).toFixed(3)} | ${fmt(mean(dTest))} ± ${stderr(dTest).toFixed(3)} | ${mean(s.runs.map((r) => r.bestLineageDepth)).toFixed(1)} | ${(wall / 1000).toFixed(2)} s | ${(wall / singleWall).toFixed(2)} | ${Number.isFinite(m90) ? `${(m90 / 1000).toFixed(2)} s` : 'never'} (${to90.filter(Number.isFinite).length}/${paired.length}) | ${s.about} |`,
    );
  }
}

if (command === 'list') for (const [name, v] of Object.entries(VARIANTS)) console.log(`${name}: ${v.about}`);
else if (command === 'run') for (const name of names) await run(name, Number(flag('--seeds', '48')));
else table();
