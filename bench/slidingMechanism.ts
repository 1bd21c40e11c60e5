// Why sliding minibatches matter on one task and not another (issue 32): per run of a batched
// width, with fresh and with sliding minibatches (today's tie order, the reference workload),
// what the steps cost and decided: steps that fit the budget, metric calls per step, how many of
// a parent's minibatch examples it had been judged on before (those calls come from the cache:
// no budget), proposals skipped (parent perfect on its minibatch), children that pass the gate,
// children accepted per 100 calls; and the quality reached.
//
//   npx tsx bench/slidingMechanism.ts run [--task hotel] [--shapes 2x2,4x1] [--seeds 24] [--sampled]
//   npx tsx bench/slidingMechanism.ts table [--task hotel] [--sampled]
//
// --sampled: the reflection model answers a repeated prompt with a new draw (a real model above
// temperature 0; Workload.reflectionSampling), stored apart (<task>-sampled.json).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { RunEvent } from '../src/gepa/core/runEvent.js';
import type { StepMinibatches } from '../src/settingValues.js';
import { benchRun } from './benchTask.js';
import { benchArgs } from './cliArgs.js';
import { WORKLOAD } from './mechanismVariants.js';
import { mean, signedMean, standardError } from './table.js';

const { flag, positional } = benchArgs();
const [command = 'table'] = positional;
const task = flag('--task', 'hotel');
const sampled = process.argv.includes('--sampled');
const file = new URL(`./results/sliding/${task}${sampled ? '-sampled' : ''}.json`, import.meta.url);
const RULES: StepMinibatches[] = ['fresh', 'sliding'];

interface Figures {
  shape: string;
  rule: StepMinibatches;
  seed: number;
  bestValScore: number;
  testScore: number;
  metricCalls: number;
  steps: number;
  proposals: number;
  /** Of the parents' minibatch examples, the share the parent had been evaluated on before (cache hits). */
  parentSeenShare: number;
  /** Metric calls the cache saved on parents' minibatches. */
  parentCacheHits: number;
  skipped: number;
  /** Judged children (not skipped) that passed the gate (accepted, or equal to a pool member). */
  passed: number;
  /** Children identical to a pool member or to another child of their step. */
  duplicates: number;
  judged: number;
  accepted: number;
}

async function measure(shape: string, rule: StepMinibatches, seed: number): Promise<Figures> {
  const [parents, perParent] = shape.split('x').map(Number) as [number, number];
  const draws = new Map<string, { parent?: number; ids?: number[] }>();
  const onEvent = (e: RunEvent) => {
    if (e.type !== 'candidate.selected' && e.type !== 'minibatch.sampled') return;
    const key = `${e.step}:${e.task}`;
    const d = draws.get(key) ?? {};
    if (e.type === 'candidate.selected') d.parent = e.parent;
    else d.ids = e.ids;
    draws.set(key, d);
  };
  const r = await benchRun({ label: shape, schedule: { kind: 'batched', parents, perParent }, options: { stepMinibatches: rule, onEvent } }, seed, { ...WORKLOAD, task, tieOrder: undefined, stepMinibatches: undefined, reflectionSampling: sampled });
  const reflective = r.proposals.filter((p) => p.kind === 'reflective').sort((a, b) => a.step - b.step || a.task - b.task);
  // (candidate, train example) pairs evaluated so far: a parent's and an accepted child's minibatch.
  const seen = new Set<string>();
  let examples = 0;
  let hits = 0;
  let step = -1;
  let pending: string[] = [];
  for (const p of reflective) {
    // Evaluations of one step all start after its draws: what the step adds counts from the next step on.
    if (p.step !== step) {
      for (const k of pending) seen.add(k);
      pending = [];
      step = p.step;
    }
    const d = draws.get(`${p.step}:${p.task}`);
    if (!d?.ids || d.parent === undefined) continue;
    for (const id of d.ids) {
      examples++;
      if (seen.has(`${d.parent}:${id}`)) hits++;
      pending.push(`${d.parent}:${id}`);
      if (p.candidateIndex !== undefined) pending.push(`${p.candidateIndex}:${id}`);
    }
  }
  const judged = reflective.filter((p) => p.outcome !== 'skipped');
  return {
    shape,
    rule,
    seed,
    bestValScore: r.bestValScore,
    testScore: r.testScore,
    metricCalls: r.metricCalls,
    steps: new Set(reflective.map((p) => p.step)).size,
    proposals: reflective.length,
    parentSeenShare: examples === 0 ? 0 : hits / examples,
    parentCacheHits: hits,
    skipped: reflective.length - judged.length,
    passed: judged.filter((p) => p.outcome === 'accepted' || /already in the pool|duplicate/i.test(p.reason)).length,
    duplicates: judged.filter((p) => /already in the pool|duplicate/i.test(p.reason)).length,
    judged: judged.length,
    accepted: reflective.filter((p) => p.outcome === 'accepted').length,
  };
}

const stored = (): Figures[] => (existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { runs: Figures[] }).runs : []);

if (command === 'run') {
  const shapes = flag('--shapes', '2x2,4x1').split(',');
  const seeds = Number(flag('--seeds', '24'));
  const runs = stored().filter((f) => !shapes.includes(f.shape));
  for (const shape of shapes) {
    for (const rule of RULES) {
      for (let seed = 0; seed < seeds; seed++) {
        runs.push(await measure(shape, rule, seed));
        process.stderr.write(`  ${task} ${shape} ${rule} seed ${seed}\n`);
      }
    }
  }
  mkdirSync(new URL('./results/sliding/', import.meta.url), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ task, workload: WORKLOAD, runs })}\n`);
} else {
  const runs = stored();
  const pm = (xs: number[], d = 3) => `${mean(xs).toFixed(d)} ± ${standardError(xs).toFixed(d)}`;
  console.log(`\n## Fresh vs sliding minibatches, task '${task}'${sampled ? ', reflection sampled anew on a repeated prompt' : ''} (means per run ± standard error; Δ = sliding - fresh, paired by seed)\n`);
  console.log('| width | rule | seeds | steps | calls / step | parent examples judged before | cache hits (calls) | skipped | children passing the gate | duplicate children | accepted / 100 calls | best val | test | Δ val | Δ test |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const shape of [...new Set(runs.map((r) => r.shape))]) {
    const fresh = new Map(runs.filter((r) => r.shape === shape && r.rule === 'fresh').map((r) => [r.seed, r]));
    for (const rule of RULES) {
      const rs = runs.filter((r) => r.shape === shape && r.rule === rule);
      if (rs.length === 0) continue;
      const paired = rule === 'sliding' ? rs.filter((r) => fresh.has(r.seed)) : [];
      const d = (f: (x: Figures) => number) => (paired.length > 1 ? signedMean(paired.map((r) => f(r) - f(fresh.get(r.seed) as Figures))) : '');
      console.log(
        `| ${shape} | ${rule} | ${rs.length} | ${pm(rs.map((r) => r.steps), 1)} | ${pm(rs.map((r) => r.metricCalls / r.steps), 1)} | ${pm(rs.map((r) => r.parentSeenShare))} | ${pm(rs.map((r) => r.parentCacheHits), 0)} | ${pm(rs.map((r) => r.skipped), 1)} | ${pm(rs.map((r) => r.passed / Math.max(1, r.judged)))} | ${pm(rs.map((r) => r.duplicates), 1)} | ${pm(rs.map((r) => (100 * r.accepted) / r.metricCalls), 2)} | ${pm(rs.map((r) => r.bestValScore))} | ${pm(rs.map((r) => r.testScore))} | ${d((x) => x.bestValScore)} | ${d((x) => x.testScore)} |`,
      );
    }
  }
}
