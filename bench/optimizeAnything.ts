// optimizeAnything side by side with gepa 0.1.4's optimize_anything on the two optimizeAnything
// bench tasks (bench/anythingTasks.ts): the same evaluator, simulated reflection model, budget and
// seeds. The reference runs through the bridge (bench/reference/anythingBridge.ts); ours runs as a
// user calls it, on simulated time (the tasks' latencies slept on a SimulatedClock), 1x1 (the
// reference's schedule), and 2x2 and async 8 beside. Wall-clock is simulated throughout.
//
//   npx tsx bench/optimizeAnything.ts run <impl...> [--task service-config|records] [--seeds 24] [--from 0] [--dir NAME]
//   npx tsx bench/optimizeAnything.ts table [--task ...] [--dir NAME]   (--dir: results/anything/NAME instead of <task>)
//
// impl: reference, single, 2x2, async8, single-matched (1x1 at the calls the reference spent), single-last-calls (1x1 with spendLastCalls). Runs go to bench/results/anything/<task>/<impl>.json.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { SimulatedClock } from 'xstate';
import { runOnSimulatedClock, steppingClock } from '../src/clock.js';
import { optimizeAnything } from '../src/index.js';
import type { Schedule } from '../src/settingValues.js';
import { lineageDepth } from './benchTask.js';
import { anythingBenchTask, ANYTHING_WORKERS, heldOutScore } from './anythingTasks.js';
import { benchArgs } from './cliArgs.js';
import { referenceAnythingRun, type AnythingRun } from './reference/anythingBridge.js';
import { installGepa } from './reference/gepaInstall.js';
import { mean, signedMean, standardError } from './table.js';

/** Our schedules by name; 'reference' is gepa's optimize_anything (1x1, its only schedule). */
export const OUR_SCHEDULES: Record<string, Schedule> = {
  single: { kind: 'batched', parents: 1, perParent: 1 },
  '2x2': { kind: 'batched', parents: 2, perParent: 2 },
  async8: { kind: 'async', inFlight: 8 },
};
/**
 * A variant: ours 1x1 with each seed's budget set to the calls the reference actually spent on that
 * seed (gepa checks its budget before an iteration and may overshoot it; ours never does).
 */
const MATCHED = 'single-matched';
/** A variant: ours 1x1 with spendLastCalls (the budget's last calls spent on smaller or valset-owing proposals). */
const LAST_CALLS = 'single-last-calls';
const IMPLS = ['reference', ...Object.keys(OUR_SCHEDULES), MATCHED, LAST_CALLS];

/** optimizeAnything on the task, as a user calls it, on simulated time. */
export async function oursAnythingRun(taskName: string, implName: string, seed: number, budget?: number, spendLastCalls = false): Promise<AnythingRun> {
  const bench = anythingBenchTask(taskName);
  const schedule = OUR_SCHEDULES[implName];
  if (!schedule) throw new Error(`unknown schedule '${implName}' (known: ${Object.keys(OUR_SCHEDULES).join(', ')})`);
  const clock = steppingClock(new SimulatedClock());
  const task = bench.create({ seed, ...bench.sizes, ...bench.latency, clock });
  const result = await runOnSimulatedClock(
    clock,
    optimizeAnything<unknown>({
      seedCandidate: task.seedCandidate,
      evaluator: (candidate, example, ctx) => task.evaluate(candidate, example, ctx),
      ...(task.dataset ? { dataset: task.dataset } : {}),
      ...(task.valset ? { valset: task.valset } : {}),
      objective: task.objective,
      background: task.background,
      reflectionLm: task.reflectionLm,
      maxMetricCalls: budget ?? bench.budget,
      // Named either way: the stored runs (bench/results/anything/) were made with it off, its default then.
      spendLastCalls,
      schedule,
      workers: ANYTHING_WORKERS,
      seed,
      clock,
    }),
  );
  const testScore = await heldOutScore(bench, seed, result.bestCandidate);
  return {
    seed,
    metricCalls: result.metricCalls,
    bestValScore: result.bestScore,
    testScore,
    withinBudget: { bestValScore: result.bestScore, testScore },
    candidates: result.candidates.length,
    bestLineageDepth: lineageDepth(result.parents, result.bestIndex),
    wallClockMs: result.elapsedMs,
    reflectionCalls: result.reflectionCalls,
  };
}

const { flag, positional } = benchArgs();
const [command = 'table', ...impls] = positional;
const taskName = flag('--task', 'service-config');
// --dir: another results folder (more seeds, kept apart from the 24-seed figures).
const dir = new URL(`./results/anything/${flag('--dir', taskName)}/`, import.meta.url);

function stored(impl: string): AnythingRun[] | undefined {
  const file = new URL(`${impl}.json`, dir);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { runs: AnythingRun[] }).runs : undefined;
}

function referenceSpend(seed: number): number {
  const r = stored('reference')?.find((x) => x.seed === seed);
  if (!r) throw new Error(`${MATCHED} needs the reference's run of seed ${seed}: run 'reference' first`);
  return r.metricCalls;
}

async function run(impl: string, seeds: number, from: number): Promise<void> {
  if (!IMPLS.includes(impl)) throw new Error(`unknown impl '${impl}' (known: ${IMPLS.join(', ')})`);
  if (impl === 'reference' && !process.env.GEPA_SRC) installGepa();
  const runs: AnythingRun[] = [];
  for (let seed = from; seed < from + seeds; seed++) {
    const r = impl === 'reference' ? await referenceAnythingRun(taskName, 'single', seed) : impl === MATCHED ? await oursAnythingRun(taskName, 'single', seed, referenceSpend(seed)) : impl === LAST_CALLS ? await oursAnythingRun(taskName, 'single', seed, undefined, true) : await oursAnythingRun(taskName, impl, seed);
    runs.push(r);
    process.stderr.write(`  ${impl} seed ${seed}: best ${r.bestValScore.toFixed(3)}${r.testScore === undefined ? '' : ` test ${r.testScore.toFixed(3)}`} calls ${r.metricCalls} wall ${(r.wallClockMs / 60_000).toFixed(1)} min\n`);
  }
  mkdirSync(dir, { recursive: true });
  const kept = (stored(impl) ?? []).filter((r) => r.seed < from || r.seed >= from + seeds);
  const bench = anythingBenchTask(taskName);
  const all = [...kept, ...runs].sort((a, b) => a.seed - b.seed);
  writeFileSync(new URL(`${impl}.json`, dir), `${JSON.stringify({ impl, task: taskName, budget: bench.budget, workers: ANYTHING_WORKERS, latency: bench.latency, sizes: bench.sizes, runs: all })}\n`);
}

const pm = (xs: readonly number[], d = 3) => `${mean(xs).toFixed(d)} ± ${standardError(xs).toFixed(d)}`;

function table(): void {
  const bench = anythingBenchTask(taskName);
  const reference = new Map((stored('reference') ?? []).map((r) => [r.seed, r]));
  const generalization = bench.sizes.valSize !== undefined;
  console.log(`\n## optimizeAnything vs gepa 0.1.4 optimize_anything, task '${taskName}', budget ${bench.budget} metric calls, W = ${ANYTHING_WORKERS}; simulated wall-clock (evaluator ${bench.latency.metricCallMs / 1000} s, reflection ${bench.latency.reflectionMs / 1000} s mean); mean ± standard error; Δ paired by seed against the reference's best within the budget\n`);
  console.log(`| impl | seeds | best val | Δ val vs reference (within budget) |${generalization ? ' test | Δ test |' : ''} metric calls | reflections | candidates | wall-clock (min) |`);
  console.log(`|---|---:|---:|---:|${generalization ? '---:|---:|' : ''}---:|---:|---:|---:|`);
  for (const impl of IMPLS) {
    const runs = stored(impl);
    if (!runs || runs.length === 0) continue;
    const paired = runs.filter((r) => reference.has(r.seed));
    const ref = (r: AnythingRun) => reference.get(r.seed) as AnythingRun;
    const dVal = paired.map((r) => r.bestValScore - ref(r).withinBudget.bestValScore);
    const dTest = paired.map((r) => (r.testScore ?? 0) - (ref(r).withinBudget.testScore ?? 0));
    const val = impl === 'reference' ? `${pm(runs.map((r) => r.bestValScore))} (within budget ${mean(runs.map((r) => r.withinBudget.bestValScore)).toFixed(3)})` : pm(runs.map((r) => r.bestValScore));
    const test = generalization ? ` ${pm(runs.map((r) => r.testScore ?? 0))} | ${impl === 'reference' ? '-' : signedMean(dTest)} |` : '';
    console.log(`| ${impl} | ${runs.length} | ${val} | ${impl === 'reference' ? '-' : signedMean(dVal)} |${test} ${pm(runs.map((r) => r.metricCalls), 1)} | ${pm(runs.map((r) => r.reflectionCalls), 1)} | ${pm(runs.map((r) => r.candidates), 1)} | ${pm(runs.map((r) => r.wallClockMs / 60_000), 1)} |`);
  }
}

if (command === 'run') {
  for (const impl of impls) await run(impl, Number(flag('--seeds', '24')), Number(flag('--from', '0')));
} else table();
