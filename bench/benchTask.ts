// One benchmark run on a bench task (the demo by default): optimize() with the given schedule, then the figures the
// tables report: wall-clock, calls, best valset score, the best candidate's held-out test score,
// utilization, when each candidate was found, and the runtime model's prediction for the run.
import { SimulatedClock } from 'xstate';
import { optimize, type OptimizeResult } from '../src/index.js';
import { runOnSimulatedClock, steppingClock, type SteppingClock, systemClock } from '../src/clock.js';
import { predictWallClock } from '../src/runtimeModel/index.js';
import { measuredRebasing } from '../src/report/runtimeCheck.js';
import { summarizeStaleness } from '../src/report/stalenessSummary.js';
import { sampledOnRepeat } from '../src/demo/repeatedPromptSampling.js';
import type { Candidate } from '../src/gepa/core/adapter.js';
import type { LanguageModel } from '../src/gepa/core/languageModel.js';
import type { OptimizeConfig } from '../src/config/optimizeConfig.js';
import type { ProposalRecord } from '../src/gepa/core/optimizeResult.js';
import type { Schedule, SlotPolicy, StepMinibatches, TieOrder } from '../src/settingValues.js';
import { benchTask } from './tasks.js';

export interface BenchSetting {
  label: string;
  schedule: Schedule;
  /** Further options of the run (a mechanism under test: valsetPolicy, ...). */
  /** Wraps the task's reflection model (a reflection strategy prototyped as a model that rewrites its prompt). */
  wrapReflection?: (lm: LanguageModel) => LanguageModel;
  options?: Pick<OptimizeConfig<unknown>, 'spendLastCalls' | 'valsetPolicy' | 'parentSelection' | 'reflectionMinibatchSize' | 'maxMetricCalls' | 'stepMinibatches' | 'tieOrder' | 'onEvent' | 'merge' | 'sampleMinibatch' | 'reflectionStrategy'>;
}

export const SETTINGS: BenchSetting[] = [
  { label: 'single', schedule: { kind: 'batched', parents: 1, perParent: 1 } },
  { label: '2x1', schedule: { kind: 'batched', parents: 2, perParent: 1 } },
  { label: '2x2', schedule: { kind: 'batched', parents: 2, perParent: 2 } },
  { label: '4x1', schedule: { kind: 'batched', parents: 4, perParent: 1 } },
  { label: '2x4', schedule: { kind: 'batched', parents: 2, perParent: 4 } },
  { label: '8x1', schedule: { kind: 'batched', parents: 8, perParent: 1 } },
  { label: '4x4', schedule: { kind: 'batched', parents: 4, perParent: 4 } },
  { label: 'async 4', schedule: { kind: 'async', inFlight: 4 } },
  { label: 'async 8', schedule: { kind: 'async', inFlight: 8 } },
  { label: 'async 16', schedule: { kind: 'async', inFlight: 16 } },
];

export interface Workload {
  metricCallMs: number;
  reflectionMs: number;
  workers: number;
  budget: number;
  valSize: number;
  trainSize: number;
  testSize: number;
  /** Simulated time (SimulatedClock) or real time. */
  simulated: boolean;
  slotPolicy?: SlotPolicy;
  /** A name in bench/tasks.ts; default 'demo'. */
  task?: string;
  /** Dominated removal's tie order; default the optimizer's. */
  tieOrder?: TieOrder;
  /** A batched step's minibatches; default the optimizer's. */
  stepMinibatches?: StepMinibatches;
  /**
   * The simulated reflection model answers a prompt it was sent before with a new draw, as a real
   * model sampled above temperature 0 would (default: the same answer, a function of the prompt).
   */
  reflectionSampling?: boolean;
}

export interface RunFigures {
  setting: string;
  seed: number;
  wallClockMs: number;
  metricCalls: number;
  bestValScore: number;
  seedValScore: number;
  testScore: number;
  utilization: number;
  candidates: number;
  acceptanceRate: number;
  skipRate: number;
  predictedMs: number;
  /** Mean and 90th percentile of the proposals' staleness (0 for batched steps). */
  stalenessMean: number;
  stalenessP90: number;
  /** (elapsedMs, valScore) of each candidate, in discovery order. */
  discoveries: Array<[number, number]>;
  /** Generations from the seed to the best candidate, along first parents (the seed is 0). */
  bestLineageDepth: number;
  /** The best candidate's texts, for parts that look inside the prompt. */
  bestCandidate: Candidate;
  /** Every proposal's record, for parts that count outcomes. */
  proposals: ProposalRecord[];
}

const JITTER: [number, number] = [0.5, 1.5];

export async function benchRun(setting: BenchSetting, seed: number, w: Workload): Promise<RunFigures> {
  const clock = w.simulated ? steppingClock(new SimulatedClock()) : systemClock;
  const sizes = { trainSize: w.trainSize, valSize: w.valSize, testSize: w.testSize };
  const task = benchTask(w.task ?? 'demo')({ seed, ...sizes, metricCallMs: w.metricCallMs, reflectionMs: w.reflectionMs, jitter: JITTER, clock });
  const run = optimize({
    seedCandidate: task.seedCandidate,
    trainset: task.trainset,
    valset: task.valset,
    adapter: task.adapter,
    reflectionLm: (setting.wrapReflection ?? ((lm: LanguageModel) => lm))(w.reflectionSampling ? sampledOnRepeat(task.reflectionLm) : task.reflectionLm),
    schedule: setting.schedule,
    workers: w.workers,
    maxMetricCalls: w.budget,
    seed,
    clock,
    slotPolicy: w.slotPolicy,
    tieOrder: w.tieOrder,
    stepMinibatches: w.stepMinibatches,
    ...setting.options,
  });
  const result: OptimizeResult = w.simulated ? await runOnSimulatedClock(clock as SteppingClock, run) : await run;
  return { setting: setting.label, seed, ...(await figures(result, setting, w, seed)) };
}

async function figures(result: OptimizeResult, setting: BenchSetting, w: Workload, seed: number): Promise<Omit<RunFigures, 'setting' | 'seed'>> {
  // The held-out score is measured outside the run, at zero latency, on the same task.
  const scorer = benchTask(w.task ?? 'demo')({ seed, trainSize: w.trainSize, valSize: w.valSize, testSize: w.testSize });
  const signal = new AbortController().signal;
  const scores = await Promise.all(scorer.testset.map((e) => scorer.adapter.evaluate(result.bestCandidate, e, { captureTraces: false, signal })));
  const judged = result.proposals.filter((p) => p.childMinibatchSum !== undefined);
  const accepted = result.proposals.filter((p) => p.outcome === 'accepted' || p.reason.startsWith('child is already') || p.reason.startsWith('duplicate')).length;
  const skipped = result.proposals.filter((p) => p.outcome === 'skipped').length;
  const acceptanceRate = judged.length === 0 ? 0 : accepted / judged.length;
  const skipRate = result.proposals.length === 0 ? 0 : skipped / result.proposals.length;
  // auto: predicted at the last in-flight count it chose.
  const schedule =
    setting.schedule.kind === 'async'
      ? setting.schedule
      : setting.schedule.kind === 'auto'
        ? { kind: 'async' as const, inFlight: result.scheduleDecisions?.at(-1)?.shape.inFlight ?? 1 }
        : { kind: 'batched' as const, parents: setting.schedule.parents ?? 1, perParent: setting.schedule.perParent ?? 1 };
  const minibatchSize = setting.options?.reflectionMinibatchSize ?? 3;
  const prediction = predictWallClock({
    schedule,
    metricCallMs: w.metricCallMs,
    reflectionMs: w.reflectionMs,
    workers: w.workers,
    valsetSize: w.valSize,
    minibatchSize,
    acceptanceRate,
    skipRate,
    ...measuredRebasing(result.proposals, minibatchSize),
    budget: w.budget,
    jitter: JITTER,
  });
  const staleness = summarizeStaleness(result.proposals);
  return {
    wallClockMs: result.elapsedMs,
    metricCalls: result.metricCalls,
    bestValScore: result.bestScore,
    seedValScore: result.valScores[0] ?? 0,
    testScore: scores.reduce((a, e) => a + e.score, 0) / scores.length,
    utilization: result.workerUtilization,
    candidates: result.candidates.length,
    acceptanceRate,
    skipRate,
    predictedMs: prediction.wallClockMs,
    stalenessMean: staleness.mean,
    stalenessP90: staleness.p90,
    discoveries: result.discoveryElapsedMs.map((t, i) => [t, result.valScores[i] ?? 0]),
    bestLineageDepth: lineageDepth(result.parents, result.bestIndex),
    bestCandidate: result.bestCandidate,
    proposals: result.proposals,
  };
}

/** Generations from the seed to candidate `i`, following each candidate's first parent. */
export function lineageDepth(parents: readonly (readonly number[])[], i: number): number {
  let depth = 0;
  for (let at = i; (parents[at]?.length ?? 0) > 0; at = parents[at]?.[0] as number) depth++;
  return depth;
}

/** When the run's best valset score first reached `target` (Infinity if never). */
export function timeToReach(run: RunFigures, target: number): number {
  let best = -Infinity;
  for (const [t, score] of [...run.discoveries].sort((a, b) => a[0] - b[0])) {
    best = Math.max(best, score);
    if (best >= target) return t;
  }
  return Infinity;
}
