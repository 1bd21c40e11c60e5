// The reference bridge: gepa 0.1.4 (the Python reference, the paper's implementation) run on our
// bench tasks with the same simulated task and reflection models, examples, valset, minibatch
// size, budget and seeds as our runs, so the two implementations differ only in their rules.
// The Python side (bench/reference/gepaBridge.py) runs gepa.optimize; every metric call,
// reflective dataset and reflection comes back here over JSON lines.
//
//   GEPA_SRC=<gepa v0.1.4 checkout>/src npx tsx bench/reference.ts run <shape...> [--task demo] [--seeds 24] [--from 0] [--impl reference|ours [--variant NAME]]
//   npx tsx bench/reference.ts table [--task demo] [--reference reference-merge5]   reference vs ours per width, paired by seed
//   npx tsx bench/reference.ts diff [--task demo]       what each implementation's steps chose and decided
//   npx tsx bench/reference.ts compare [--task demo] [--versus ours]   our variants against each other, paired by seed
//
// Shapes are single, 2x1, 2x2, 4x1, 2x4, 8x1 (P x N). Runs go to bench/results/reference/<task>/.
// Quality does not depend on latency in either implementation's batched schedule (results are
// folded in task order), so the reference runs at zero latency; ours run as in mechanisms.ts.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { errorMessage } from '../src/errorMessage.js';
import { buildReflectiveDataset } from '../src/gepa/proposer/reflectiveDataset.js';
import { reflectionPromptAround } from '../src/gepa/proposer/reflectionPrompt.js';
import type { Candidate, Evaluation, RunEvent } from '../src/types.js';
import { benchRun, lineageDepth, type BenchSetting } from './benchTask.js';
import { WORKLOAD } from './mechanismVariants.js';
import { benchTask, TASK_WORKLOADS, type BenchTask } from './tasks.js';
import { benchArgs } from './cliArgs.js';
import { mean, signedMean, standardError } from './table.js';

const { flag, positional } = benchArgs();
const [command = 'table', ...shapes] = positional;
const taskName = flag('--task', 'demo');
const dir = new URL(`./results/reference/${taskName}/`, import.meta.url);

const SHAPES: Record<string, { parents: number; perParent: number }> = {
  single: { parents: 1, perParent: 1 },
  '2x1': { parents: 2, perParent: 1 },
  '2x2': { parents: 2, perParent: 2 },
  '4x1': { parents: 4, perParent: 1 },
  '2x4': { parents: 2, perParent: 4 },
  '8x1': { parents: 8, perParent: 1 },
};

/** Our rule variants under test (`--impl ours --variant NAME`), stored as ours-NAME-<shape>.json. */
const OUR_VARIANTS: Record<string, NonNullable<BenchSetting['options']>> = {
  default: {},
  /** The reference's minibatch pacing. */
  sliding: { stepMinibatches: 'sliding' },
  /** The batched schedule's tie order before the reference issue. */
  oldest: { tieOrder: 'oldest-survives' },
  'oldest-sliding': { stepMinibatches: 'sliding', tieOrder: 'oldest-survives' },
  /** Merge on, at the reference's default of 5. */
  merge5: { merge: { maxMerges: 5 } },
};

/** The reference's variants (`--impl reference --variant NAME`), stored as reference-NAME-<shape>.json. */
const REFERENCE_VARIANTS: Record<string, { maxMerges: number }> = {
  default: { maxMerges: 0 },
  merge5: { maxMerges: 5 },
};

/** One step of a run as the differential reads it (the reference's callbacks, or our proposal records). */
interface StepLog {
  parents: number[];
  minibatches: number[][];
  skipped: number;
  accepted: number[];
  rejected: string[];
}

/** What the differential compares of a run's steps (stored instead of the steps themselves). */
interface StepStats {
  steps: number;
  /** Steps with fewer tasks than P x N: the budget could not pay for the whole width. */
  narrowedSteps: number;
  proposals: number;
  skipped: number;
  accepted: number;
  /** Children rejected as a duplicate within their step, or as a text already in the pool. */
  duplicates: number;
  distinctMinibatches: number;
  reusedMinibatches: number;
  /** Distinct parents drawn in a step of full width (P draws with replacement). */
  parentsPerFullStep: number;
}

function stepStats(steps: readonly StepLog[], width: number): StepStats {
  const seen = new Set<string>();
  let reusedMinibatches = 0;
  for (const s of steps) {
    const keys = s.minibatches.map((m) => m.join(','));
    reusedMinibatches += keys.filter((k) => seen.has(k)).length;
    for (const k of keys) seen.add(k);
  }
  const full = steps.filter((s) => s.parents.length === width);
  const sum = (f: (s: StepLog) => number) => steps.reduce((a, s) => a + f(s), 0);
  return {
    steps: steps.length,
    narrowedSteps: steps.length - full.length,
    proposals: sum((s) => s.parents.length),
    skipped: sum((s) => s.skipped),
    accepted: sum((s) => s.accepted.length),
    duplicates: sum((s) => s.rejected.filter((x) => /duplicate|already in the pool/i.test(x)).length),
    distinctMinibatches: seen.size,
    reusedMinibatches,
    parentsPerFullStep: full.length === 0 ? 0 : mean(full.map((s) => new Set(s.parents).size)),
  };
}

interface StoredRun {
  seed: number;
  metricCalls: number;
  bestValScore: number;
  testScore: number;
  bestLineageDepth: number;
  candidates: number;
  /** The best candidate among those whose valset evaluation was paid within the budget (the reference overshoots). */
  withinBudget: { bestValScore: number; testScore: number };
  steps: StepStats;
  /** Merges tried and accepted (absent from runs stored before merge variants were measured: none). */
  merges?: { tried: number; accepted: number };
}

// A task with a real model brings its own, far smaller budget and sizes (bench/tasks.ts).
const workload = { ...WORKLOAD, ...TASK_WORKLOADS[taskName] };
const sizes = { trainSize: workload.trainSize, valSize: workload.valSize, testSize: workload.testSize };
const signal = new AbortController().signal;

async function testScore(task: BenchTask, candidate: Candidate): Promise<number> {
  const scores = await Promise.all(task.testset.map((e) => task.adapter.evaluate(candidate, e, { captureTraces: false, signal })));
  return scores.reduce((a, e) => a + e.score, 0) / scores.length;
}

interface ReferenceResult {
  candidates: Candidate[];
  parents: number[][];
  valScores: number[];
  bestIndex: number;
  metricCalls: number;
  discoveryMetricCalls: number[];
  steps: StepLog[];
  merges: { tried: number; accepted: number };
}

type Request =
  | { op: 'setup' }
  | { op: 'evaluate'; candidate: Candidate; examples: Array<{ split: 'train' | 'val'; i: number }>; traces: boolean }
  | { op: 'dataset'; candidate: Candidate; tokens: number[]; components: string[] }
  | { op: 'reflect'; prompt: string }
  | ({ op: 'result' } & ReferenceResult);

/** gepa 0.1.4 on `task` with our task's models, answering its requests until it reports its result. */
async function referenceRun(shapeName: string, seed: number, variant: string): Promise<StoredRun> {
  const gepaSrc = process.env.GEPA_SRC;
  if (!gepaSrc) throw new Error('set GEPA_SRC to the src/ folder of a gepa v0.1.4 checkout (bench/README.md, "The reference bridge")');
  const shape = SHAPES[shapeName];
  if (!shape) throw new Error(`unknown shape '${shapeName}' (known: ${Object.keys(SHAPES).join(', ')})`);
  const rules = REFERENCE_VARIANTS[variant];
  if (!rules) throw new Error(`unknown reference variant '${variant}' (known: ${Object.keys(REFERENCE_VARIANTS).join(', ')})`);
  const task = benchTask(taskName)({ seed, ...sizes });
  const script = fileURLToPath(new URL('./reference/gepaBridge.py', import.meta.url));
  const child = spawn('python3', [script], { env: { ...process.env, PYTHONPATH: gepaSrc }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const evaluations: Array<{ example: unknown; evaluation: Evaluation }> = [];
  let calls = 0;
  let result: ReferenceResult | undefined;
  const reply = (answer: unknown) => child.stdin.write(`${JSON.stringify(answer)}\n`);
  for await (const line of createInterface({ input: child.stdout })) {
    const request = JSON.parse(line) as Request;
    try {
      if (request.op === 'setup') {
        const components = Object.keys(task.seedCandidate);
        reply({
          seedCandidate: task.seedCandidate,
          trainset: task.trainset.map((_, i) => ({ split: 'train', i })),
          valset: task.valset.map((_, i) => ({ split: 'val', i })),
          promptTemplates: Object.fromEntries(components.map((c) => [c, reflectionPromptAround(c, '<curr_param>', '<side_info>')])),
          minibatchSize: 3,
          maxMetricCalls: workload.budget,
          maxMerges: rules.maxMerges,
          shape,
          seed,
        });
      } else if (request.op === 'evaluate') {
        const examples = request.examples.map(({ split, i }) => (split === 'train' ? task.trainset : task.valset)[i]);
        const done = await Promise.all(examples.map((example) => task.adapter.evaluate(request.candidate, example, { captureTraces: request.traces, signal })));
        calls += done.length;
        const tokens = done.map((evaluation, k) => evaluations.push({ example: examples[k], evaluation }) - 1);
        reply({ scores: done.map((e) => e.score), outputs: done.map((e) => e.output ?? null), tokens });
      } else if (request.op === 'dataset') {
        const results = request.tokens.map((t) => evaluations[t] as { example: unknown; evaluation: Evaluation });
        reply({ dataset: await buildReflectiveDataset(task.adapter, request.candidate, results, request.components) });
      } else if (request.op === 'reflect') {
        const answer = await task.reflectionLm(request.prompt, { signal });
        reply({ text: typeof answer === 'string' ? answer : answer.text });
      } else {
        result = request;
        reply({ ok: true });
      }
    } catch (error) {
      reply({ error: errorMessage(error) });
    }
  }
  const code = await exited;
  if (code !== 0 || !result) throw new Error(`the reference bridge exited with ${code}:\n${stderr}`);
  if (result.metricCalls !== calls) throw new Error(`gepa counted ${result.metricCalls} metric calls, the bridge served ${calls}`);
  const knownBy = (i: number) => (i === 0 ? 0 : (result as ReferenceResult).discoveryMetricCalls[i] ?? Infinity) + task.valset.length;
  const withinBudget = result.valScores.map((s, i) => (knownBy(i) <= workload.budget ? s : -Infinity));
  const bestWithin = withinBudget.indexOf(Math.max(...withinBudget));
  const best = result.bestIndex;
  return {
    seed,
    metricCalls: result.metricCalls,
    bestValScore: result.valScores[best] as number,
    testScore: await testScore(task, result.candidates[best] as Candidate),
    bestLineageDepth: lineageDepth(result.parents, best),
    candidates: result.candidates.length,
    withinBudget: { bestValScore: result.valScores[bestWithin] as number, testScore: await testScore(task, result.candidates[bestWithin] as Candidate) },
    steps: stepStats(result.steps, shape.parents * shape.perParent),
    merges: result.merges,
  };
}

/** Our batched schedule on the same workload (simulated time, as bench/mechanisms.ts runs it). */
async function oursRun(shapeName: string, seed: number, variant: string): Promise<StoredRun> {
  const shape = SHAPES[shapeName];
  if (!shape) throw new Error(`unknown shape '${shapeName}'`);
  const options = OUR_VARIANTS[variant];
  if (!options) throw new Error(`unknown variant '${variant}' (known: ${Object.keys(OUR_VARIANTS).join(', ')})`);
  const minibatches = new Map<number, number[][]>();
  const onEvent = (e: RunEvent) => {
    if (e.type === 'minibatch.sampled') minibatches.set(e.step, [...(minibatches.get(e.step) ?? []), e.ids]);
  };
  // The run's own defaults, not the tie order the mechanism workload pins.
  const r = await benchRun({ label: shapeName, schedule: { kind: 'batched', ...shape }, options: { ...options, onEvent } }, seed, { ...workload, task: taskName, tieOrder: undefined });
  const steps = new Map<number, StepLog>();
  const merges = r.proposals.filter((p) => p.kind === 'merge');
  for (const p of r.proposals.filter((q) => q.kind !== 'merge')) {
    const s = steps.get(p.step) ?? { parents: [], minibatches: minibatches.get(p.step) ?? [], skipped: 0, accepted: [], rejected: [] };
    s.parents.push(p.parents[0] as number);
    if (p.outcome === 'skipped') s.skipped++;
    else if (p.outcome === 'accepted') s.accepted.push(p.candidateIndex as number);
    else s.rejected.push(p.reason);
    steps.set(p.step, s);
  }
  return {
    seed,
    metricCalls: r.metricCalls,
    bestValScore: r.bestValScore,
    testScore: r.testScore,
    bestLineageDepth: r.bestLineageDepth,
    candidates: r.candidates,
    withinBudget: { bestValScore: r.bestValScore, testScore: r.testScore },
    steps: stepStats([...steps.values()], shape.parents * shape.perParent),
    merges: { tried: merges.length, accepted: merges.filter((p) => p.outcome === 'accepted').length },
  };
}

/** The stored name of an implementation's runs: 'reference', 'ours' (the defaults) or 'ours-<variant>'. */
const implName = (impl: string, variant: string) => (variant === 'default' ? impl : `${impl}-${variant}`);

async function run(impl: string, variant: string, shapeName: string, seeds: number, from: number): Promise<void> {
  const runs: StoredRun[] = [];
  for (let seed = from; seed < from + seeds; seed++) {
    const r = impl === 'reference' ? await referenceRun(shapeName, seed, variant) : await oursRun(shapeName, seed, variant);
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
