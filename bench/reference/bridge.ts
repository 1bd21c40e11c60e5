// The reference bridge's two runners: gepa 0.1.4 (the Python reference, the paper's
// implementation, installed from PyPI by gepaInstall.ts) run on one of our bench tasks with the
// same simulated task and reflection models, examples, valset, minibatch size, budget and seeds
// as our runs, and our batched schedule on the same workload; each returns the figures stored per
// run and the steps it took. The Python side (gepaBridge.py) runs gepa.optimize; every metric
// call, reflective dataset and reflection comes back here over JSON lines (pythonBridge.ts).
import { buildReflectiveDataset } from '../../src/gepa/proposer/reflectiveDataset.js';
import { reflectionPromptAround } from '../../src/gepa/proposer/reflectionPrompt.js';
import type { Candidate, Evaluation } from '../../src/gepa/core/adapter.js';
import type { RunEvent } from '../../src/gepa/core/runEvent.js';
import { benchRun, lineageDepth, type BenchSetting } from '../benchTask.js';
import { WORKLOAD } from '../mechanismVariants.js';
import { benchTask, TASK_WORKLOADS, type BenchTask } from '../tasks.js';
import { mean } from '../table.js';
import { runPythonBridge } from './pythonBridge.js';

export const SHAPES: Record<string, { parents: number; perParent: number }> = {
  single: { parents: 1, perParent: 1 },
  '2x1': { parents: 2, perParent: 1 },
  '2x2': { parents: 2, perParent: 2 },
  '4x1': { parents: 4, perParent: 1 },
  '2x4': { parents: 2, perParent: 4 },
  '8x1': { parents: 8, perParent: 1 },
};

/**
 * Our rule variants under test (`--impl ours --variant NAME`), stored as ours-NAME-<shape>.json.
 * Each pins every rule whose default changed after its runs were stored, so they reproduce.
 */
export const OUR_VARIANTS: Record<string, NonNullable<BenchSetting['options']>> = {
  /** Today's defaults: sliding minibatches, the reference's exact tie order (issue 32). */
  default: {},
  /** Fresh minibatches with today's tie order: what sliding changes. */
  fresh: { stepMinibatches: 'fresh' },
  /** The defaults before issue 32 (stored as 'ours' until then). */
  'fresh-newest': { stepMinibatches: 'fresh', tieOrder: 'newest-survives' },
  /** The reference's minibatch pacing with the tie order before issue 32: what the exact order changes. */
  'sliding-newest': { stepMinibatches: 'sliding', tieOrder: 'newest-survives' },
  /** The batched schedule's tie order before the reference issue. */
  'fresh-oldest': { stepMinibatches: 'fresh', tieOrder: 'oldest-survives' },
  'oldest-sliding': { stepMinibatches: 'sliding', tieOrder: 'oldest-survives' },
  /** Merge on, at the reference's default of 5 (measured with the defaults before issue 32). */
  merge5: { merge: { maxMerges: 5 }, stepMinibatches: 'fresh', tieOrder: 'newest-survives' },
};

/** The reference's variants (`--impl reference --variant NAME`), stored as reference-NAME-<shape>.json. */
export const REFERENCE_VARIANTS: Record<string, { maxMerges: number }> = {
  default: { maxMerges: 0 },
  merge5: { maxMerges: 5 },
};

/** One step of a run as the differential reads it (the reference's callbacks, or our proposal records). */
export interface StepLog {
  parents: number[];
  minibatches: number[][];
  skipped: number;
  accepted: number[];
  rejected: string[];
}

/** What the differential compares of a run's steps (stored instead of the steps themselves). */
export interface StepStats {
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

export function stepStats(steps: readonly StepLog[], width: number): StepStats {
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

export interface StoredRun {
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

/** A task's workload: the mechanisms' one, or, for a task with a real model, its own far smaller budget and sizes (bench/tasks.ts). */
export const workloadOf = (taskName: string) => ({ ...WORKLOAD, ...TASK_WORKLOADS[taskName] });
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

/** A run as stored, and the steps it took (what the step differential reads). */
export interface BridgedRun {
  run: StoredRun;
  steps: StepLog[];
}

/** gepa 0.1.4 on `task` with our task's models, answering its requests until it reports its result. */
export async function referenceRun(taskName: string, shapeName: string, seed: number, variant = 'default'): Promise<BridgedRun> {
  const shape = SHAPES[shapeName];
  if (!shape) throw new Error(`unknown shape '${shapeName}' (known: ${Object.keys(SHAPES).join(', ')})`);
  const rules = REFERENCE_VARIANTS[variant];
  if (!rules) throw new Error(`unknown reference variant '${variant}' (known: ${Object.keys(REFERENCE_VARIANTS).join(', ')})`);
  const workload = workloadOf(taskName);
  const { trainSize, valSize, testSize } = workload;
  const task = benchTask(taskName)({ seed, trainSize, valSize, testSize });
  const evaluations: Array<{ example: unknown; evaluation: Evaluation }> = [];
  let calls = 0;
  let result: ReferenceResult | undefined;
  await runPythonBridge('gepaBridge.py', async (raw) => {
    const request = raw as Request;
    if (request.op === 'setup') {
      const components = Object.keys(task.seedCandidate);
      return {
        seedCandidate: task.seedCandidate,
        trainset: task.trainset.map((_, i) => ({ split: 'train', i })),
        valset: task.valset.map((_, i) => ({ split: 'val', i })),
        promptTemplates: Object.fromEntries(components.map((c) => [c, reflectionPromptAround(c, '<curr_param>', '<side_info>')])),
        minibatchSize: 3,
        maxMetricCalls: workload.budget,
        maxMerges: rules.maxMerges,
        shape,
        seed,
      };
    }
    if (request.op === 'evaluate') {
      const examples = request.examples.map(({ split, i }) => (split === 'train' ? task.trainset : task.valset)[i]);
      const done = await Promise.all(examples.map((example) => task.adapter.evaluate(request.candidate, example, { captureTraces: request.traces, signal })));
      calls += done.length;
      const tokens = done.map((evaluation, k) => evaluations.push({ example: examples[k], evaluation }) - 1);
      return { scores: done.map((e) => e.score), outputs: done.map((e) => e.output ?? null), tokens };
    }
    if (request.op === 'dataset') {
      const results = request.tokens.map((t) => evaluations[t] as { example: unknown; evaluation: Evaluation });
      return { dataset: await buildReflectiveDataset(task.adapter, request.candidate, results, request.components) };
    }
    if (request.op === 'reflect') {
      const answer = await task.reflectionLm(request.prompt, { signal });
      return { text: typeof answer === 'string' ? answer : answer.text };
    }
    result = request;
    return { ok: true };
  });
  if (!result) throw new Error('the reference bridge ended without a result');
  if (result.metricCalls !== calls) throw new Error(`gepa counted ${result.metricCalls} metric calls, the bridge served ${calls}`);
  const knownBy = (i: number) => (i === 0 ? 0 : (result as ReferenceResult).discoveryMetricCalls[i] ?? Infinity) + task.valset.length;
  const withinBudget = result.valScores.map((s, i) => (knownBy(i) <= workload.budget ? s : -Infinity));
  const bestWithin = withinBudget.indexOf(Math.max(...withinBudget));
  const best = result.bestIndex;
  const run: StoredRun = {
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
  return { run, steps: result.steps };
}

/** Our batched schedule on the same workload (simulated time, as bench/mechanisms.ts runs it). */
export async function oursRun(taskName: string, shapeName: string, seed: number, variant = 'default'): Promise<BridgedRun> {
  const shape = SHAPES[shapeName];
  if (!shape) throw new Error(`unknown shape '${shapeName}'`);
  const options = OUR_VARIANTS[variant];
  if (!options) throw new Error(`unknown variant '${variant}' (known: ${Object.keys(OUR_VARIANTS).join(', ')})`);
  const minibatches = new Map<number, number[][]>();
  const onEvent = (e: RunEvent) => {
    if (e.type === 'minibatch.sampled') minibatches.set(e.step, [...(minibatches.get(e.step) ?? []), e.ids]);
  };
  // The run's own defaults, not the tie order and minibatches the mechanism workload pins; but the
  // budget's last calls off, as gepa 0.1.4 (it stops once a full proposal cannot be paid) and as
  // the stored runs were made (before spendLastCalls became the default), unless the variant sets it.
  const r = await benchRun({ label: shapeName, schedule: { kind: 'batched', ...shape }, options: { spendLastCalls: false, ...options, onEvent } }, seed, { ...workloadOf(taskName), task: taskName, tieOrder: undefined, stepMinibatches: undefined });
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
  const stepLogs = [...steps.values()];
  const run: StoredRun = {
    seed,
    metricCalls: r.metricCalls,
    bestValScore: r.bestValScore,
    testScore: r.testScore,
    bestLineageDepth: r.bestLineageDepth,
    candidates: r.candidates,
    withinBudget: { bestValScore: r.bestValScore, testScore: r.testScore },
    steps: stepStats(stepLogs, shape.parents * shape.perParent),
    merges: { tried: merges.length, accepted: merges.filter((p) => p.outcome === 'accepted').length },
  };
  return { run, steps: stepLogs };
}

