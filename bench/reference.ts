// The reference bridge: gepa 0.1.4 (the Python reference, the paper's implementation) run on our
// bench tasks with the same simulated task and reflection models, examples, valset, minibatch
// size, budget and seeds as our runs, so the two implementations differ only in their rules
// (the runners: bench/reference/bridge.ts). gepa comes from PyPI, pinned, installed on first use
// into bench/reference/.gepa-0.1.4 (bench/reference/gepaInstall.ts); GEPA_SRC=<checkout>/src
// overrides it.
//
//   npx tsx bench/reference.ts run <shape...> [--task demo] [--seeds 24] [--from 0] [--impl reference|ours [--variant NAME]]
//   npx tsx bench/reference.ts table [--task demo] [--reference reference-merge5]   reference vs ours per width, paired by seed
//   npx tsx bench/reference.ts diff [--task demo]       what each implementation's steps chose and decided
//   npx tsx bench/reference.ts compare [--task demo] [--versus ours]   our variants against each other, paired by seed
//
// Shapes are single, 2x1, 2x2, 4x1, 2x4, 8x1 (P x N). Runs go to bench/results/reference/<task>/.
// Quality does not depend on latency in either implementation's batched schedule (results are
// folded in task order), so the reference runs at zero latency; ours run as in mechanisms.ts.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { oursRun, referenceRun, SHAPES, workloadOf, type StepStats, type StoredRun } from './reference/bridge.js';
import { installGepa } from './reference/gepaInstall.js';
import { benchArgs } from './cliArgs.js';
import { mean, signedMean, standardError } from './table.js';

const { flag, positional } = benchArgs();
const [command = 'table', ...shapes] = positional;
const taskName = flag('--task', 'demo');
const dir = new URL(`./results/reference/${taskName}/`, import.meta.url);
const workload = workloadOf(taskName);

/** The stored name of an implementation's runs: 'reference', 'ours' (the defaults) or 'ours-<variant>'. */
const implName = (impl: string, variant: string) => (variant === 'default' ? impl : `${impl}-${variant}`);

async function run(impl: string, variant: string, shapeName: string, seeds: number, from: number): Promise<void> {
  if (impl === 'reference' && !process.env.GEPA_SRC) installGepa();
  const runs: StoredRun[] = [];
  for (let seed = from; seed < from + seeds; seed++) {
    const { run: r } = impl === 'reference' ? await referenceRun(taskName, shapeName, seed, variant) : await oursRun(taskName, shapeName, seed, variant);
    runs.push(r);
    process.stderr.write(`  ${implName(impl, variant)} ${shapeName} seed ${seed}: best ${r.bestValScore.toFixed(3)} test ${r.testScore.toFixed(3)} calls ${r.metricCalls}\n`);
  }
  mkdirSync(dir, { recursive: true });
  // Seeds already stored for this implementation and width stay, unless run again.
  const name = implName(impl, variant);
  const kept = (stored(name, shapeName) ?? []).filter((r) => r.seed < from || r.seed >= from + seeds);
  const all = [...kept, ...runs].sort((a, b) => a.seed - b.seed);
  writeFileSync(new URL(`${name}-${shapeName}.json`, dir), `${JSON.stringify({ impl: name, shape: shapeName, task: taskName, workload, runs: all })}\n`);
}

const pm = (xs: readonly number[], d = 3) => `${mean(xs).toFixed(d)} ± ${standardError(xs).toFixed(d)}`;
const signed = signedMean;

function stored(impl: string, shapeName: string): StoredRun[] | undefined {
  const name = `${impl}-${shapeName}.json`;
  if (!existsSync(dir) || !readdirSync(dir).includes(name)) return undefined;
  return (JSON.parse(readFileSync(new URL(name, dir), 'utf8')) as { runs: StoredRun[] }).runs;
}

function table(): void {
  const reference = flag('--reference', 'reference');
  console.log(`\n## gepa 0.1.4 (${reference}) vs ours, task '${taskName}', budget ${workload.budget}, valset ${workload.valSize}; Δ = ours - reference, paired by seed (mean ± standard error)\n`);
  console.log('| width | ours | seeds | ref best val | ours best val | Δ val | ref test | ours test | Δ test | ref calls | ours calls | ref within budget: val / test | Δ val / Δ test vs it |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const shapeName of Object.keys(SHAPES)) {
    const bySeed = new Map((stored(reference, shapeName) ?? []).map((r) => [r.seed, r]));
    for (const impl of oursImpls()) {
      const pairs = (stored(impl, shapeName) ?? []).filter((o) => bySeed.has(o.seed)).map((o) => [bySeed.get(o.seed) as StoredRun, o] as const);
      if (pairs.length < 2) continue;
      const R = pairs.map(([r]) => r);
      const O = pairs.map(([, o]) => o);
      const d = (f: (r: StoredRun) => number, g: (r: StoredRun) => number = f) => pairs.map(([r, o]) => g(o) - f(r));
      console.log(
        `| ${shapeName} | ${impl} | ${pairs.length} | ${pm(R.map((r) => r.bestValScore))} | ${pm(O.map((r) => r.bestValScore))} | ${signed(d((r) => r.bestValScore))} | ${pm(R.map((r) => r.testScore))} | ${pm(O.map((r) => r.testScore))} | ${signed(d((r) => r.testScore))} | ${pm(R.map((r) => r.metricCalls), 0)} | ${pm(O.map((r) => r.metricCalls), 0)} | ${mean(R.map((r) => r.withinBudget.bestValScore)).toFixed(3)} / ${mean(R.map((r) => r.withinBudget.testScore)).toFixed(3)} | ${signed(d((r) => r.withinBudget.bestValScore, (o) => o.bestValScore))} / ${signed(d((r) => r.withinBudget.testScore, (o) => o.testScore))} |`,
      );
    }
  }
}

/** The stored runs of one implementation: its defaults first ('ours', 'reference'), then each variant. */
function storedImpls(impl: 'ours' | 'reference'): string[] {
  const names = new Set(readdirSync(dir).flatMap((f) => new RegExp(`^(${impl}(?:-[\\w-]+?)?)-(?:single|\\dx\\d)\\.json$`).exec(f)?.[1] ?? []));
  return [...names].sort((a, b) => (a === impl ? -1 : b === impl ? 1 : a.localeCompare(b)));
}
const oursImpls = () => storedImpls('ours');

/** Per implementation and width: what the steps chose and decided (stepStats of each run, averaged). */
function diff(): void {
  console.log(`\n## What the steps chose and decided, task '${taskName}' (means per run)\n`);
  console.log('| width | impl | steps | narrowed by the budget | proposals | skipped (parent perfect) | accepted | duplicate or already in the pool | distinct minibatches | minibatches reused from an earlier step | distinct parents in a full-width step | merges tried / accepted |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const shapeName of Object.keys(SHAPES)) {
    for (const impl of [...storedImpls('reference'), ...oursImpls()]) {
      const runs = stored(impl, shapeName);
      if (!runs || runs.length === 0) continue;
      const per = (f: (s: StepStats) => number, d = 1) => mean(runs.map((r) => f(r.steps))).toFixed(d);
      console.log(
        `| ${shapeName} | ${impl} | ${per((s) => s.steps)} | ${per((s) => s.narrowedSteps)} | ${per((s) => s.proposals)} | ${per((s) => s.skipped)} | ${per((s) => s.accepted)} | ${per((s) => s.duplicates)} | ${per((s) => s.distinctMinibatches)} | ${per((s) => s.reusedMinibatches)} | ${per((s) => s.parentsPerFullStep, 2)} | ${mean(runs.map((r) => r.merges?.tried ?? 0)).toFixed(1)} / ${mean(runs.map((r) => r.merges?.accepted ?? 0)).toFixed(1)} |`,
      );
    }
  }
}

/** Each of our variants against `--versus` (default: ours at today's defaults), paired by seed per width and pooled over the batched widths. */
function compare(): void {
  const base = flag('--versus', 'ours');
  console.log(`\n## Our variants vs ${base}, task '${taskName}': Δ best val / Δ test, paired by seed (mean ± standard error)\n`);
  const widths = Object.keys(SHAPES);
  console.log(`| variant | ${widths.join(' | ')} | batched widths pooled |`);
  console.log(`|---|${widths.map(() => '---:').join('|')}|---:|`);
  for (const impl of oursImpls().filter((i) => i !== base)) {
    const pooled: { val: number[]; test: number[] } = { val: [], test: [] };
    const cells = widths.map((shapeName) => {
      const a = new Map((stored(base, shapeName) ?? []).map((r) => [r.seed, r]));
      const pairs = (stored(impl, shapeName) ?? []).filter((r) => a.has(r.seed)).map((r) => [a.get(r.seed) as StoredRun, r] as const);
      if (pairs.length < 2) return '-';
      const val = pairs.map(([b, r]) => r.bestValScore - b.bestValScore);
      const test = pairs.map(([b, r]) => r.testScore - b.testScore);
      if (shapeName !== 'single') pooled.val.push(...val), pooled.test.push(...test);
      return `${signed(val)} / ${signed(test)}`;
    });
    console.log(`| ${impl} | ${cells.join(' | ')} | ${pooled.val.length > 1 ? `${signed(pooled.val)} / ${signed(pooled.test)}` : '-'} |`);
  }
}

if (command === 'run') {
  const impl = flag('--impl', 'reference');
  for (const s of shapes) await run(impl, flag('--variant', 'default'), s, Number(flag('--seeds', '24')), Number(flag('--from', '0')));
} else if (command === 'diff') diff();
else if (command === 'compare') compare();
else table();
