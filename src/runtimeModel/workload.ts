// What the runtime model is told about a run: measured latencies, the worker slots, the dataset
// sizes, acceptance and skip rates, the budget; checked once and resolved to defaults here, with
// the expected and worst-case cost of one reflective proposal derived from them.
import { requireProbability } from './paperFormulas.js';
import { meanJitterFactor, NO_JITTER, type Jitter } from './stageLatency.js';

/** The schedules the optimizer runs, with every field required (see Schedule in settingValues.ts). */
/** A schedule as the runtime model sees it: every number given. */
export type ModelSchedule =
  | {
      /** P x N steps. */
      kind: 'batched';
      /** P. */
      parents: number;
      /** N. */
      perParent: number;
    }
  | {
      /** K proposals in flight. */
      kind: 'async';
      /** K. */
      inFlight: number;
    };

/** A workload's measured numbers, what the runtime model predicts from (recommendSchedule). */
export interface WorkloadParams {
  /** T_e: mean latency of one metric call (one rollout on one example). */
  metricCallMs: number;
  /** T_r: mean latency of one reflection LM call (one component rewritten per proposal). */
  reflectionMs: number;
  /** W: slots shared by metric calls and reflection calls. */
  workers: number;
  /** V: examples in the valset. */
  valsetSize: number;
  /** b: examples in a reflection minibatch. */
  minibatchSize: number;
  /** a: probability that a proposal reaching its child evaluation is accepted. */
  acceptanceRate: number;
  /** B: metric calls, including the seed's valset evaluation. */
  budget: number;
  /** Fraction of proposals skipped after the parent evaluation (parent perfect on its minibatch). */
  skipRate?: number;
  /**
   * Async with rebasing: fraction of reflected proposals whose child is rebased onto a newer
   * candidate, and so judged again with it (2 x rebaseGateExamples more calls). Default 0.
   */
  rebaseRate?: number;
  /**
   * Examples a rebase gate judges the rebased child and its new base on, on average. Default b,
   * the whole minibatch (the worst case); the 'where-it-helped' gate uses the examples where the
   * child beat its parent, about 1.2 of 3 on the built-in tasks.
   */
  rebaseGateExamples?: number;
  /** Per-call latency factor U(lo, hi); default [1, 1], deterministic. */
  jitter?: Jitter;
}

/** A workload and the schedule to predict (predictWallClock). */
export interface PredictParams extends WorkloadParams {
  /** The schedule to predict. */
  schedule: ModelSchedule;
}

export type Workload = Required<WorkloadParams>;

export function resolveWorkload(params: WorkloadParams): Workload {
  const w: Workload = { skipRate: 0, rebaseRate: 0, jitter: NO_JITTER, ...params, rebaseGateExamples: params.rebaseGateExamples ?? params.minibatchSize };
  requirePositive('metricCallMs', w.metricCallMs);
  requirePositive('reflectionMs', w.reflectionMs);
  requirePositiveInteger('workers', w.workers);
  requirePositiveInteger('valsetSize', w.valsetSize);
  requirePositiveInteger('minibatchSize', w.minibatchSize);
  requireProbability('acceptanceRate', w.acceptanceRate);
  requireProbability('skipRate', w.skipRate);
  requireProbability('rebaseRate', w.rebaseRate);
  if (!(w.rebaseGateExamples > 0 && w.rebaseGateExamples <= w.minibatchSize)) throw new RangeError(`rebaseGateExamples must be in (0, minibatchSize], got ${w.rebaseGateExamples}`);
  const [lo, hi] = w.jitter;
  if (!(lo > 0 && hi >= lo)) throw new RangeError(`jitter must be [lo, hi] with 0 < lo <= hi, got [${lo}, ${hi}]`);
  if (!(w.budget >= w.valsetSize)) throw new RangeError(`budget (${w.budget}) must pay for the seed's valset evaluation (${w.valsetSize} calls)`);
  return w;
}

export function requireValidSchedule(schedule: ModelSchedule): void {
  if (schedule.kind === 'batched') {
    requirePositiveInteger('schedule.parents', schedule.parents);
    requirePositiveInteger('schedule.perParent', schedule.perParent);
  } else {
    requirePositiveInteger('schedule.inFlight', schedule.inFlight);
  }
}

export interface ProposalCost {
  /** b parent calls, then, unless skipped, b child calls and V valset calls if accepted. */
  expectedCalls: number;
  /** What the ledger reserves before the proposal starts: 2b + V. */
  worstCalls: number;
  /** Probability that the proposal is not skipped, i.e. expected reflection calls. */
  expectedReflections: number;
  /** Expected slot-time: every call holds one slot for its (mean) latency. */
  busySlotMs: number;
}

export function proposalCost(w: Workload): ProposalCost {
  const reflected = 1 - w.skipRate;
  const rebaseCalls = w.rebaseRate * 2 * w.rebaseGateExamples;
  const expectedCalls = w.minibatchSize + reflected * (w.minibatchSize + rebaseCalls + w.acceptanceRate * w.valsetSize);
  const mean = meanJitterFactor(w.jitter);
  return {
    expectedCalls,
    worstCalls: 2 * w.minibatchSize + w.valsetSize,
    expectedReflections: reflected,
    busySlotMs: mean * (expectedCalls * w.metricCallMs + reflected * w.reflectionMs),
  };
}

function requirePositive(name: string, x: number): void {
  if (!(x > 0 && Number.isFinite(x))) throw new RangeError(`${name} must be a positive number, got ${x}`);
}

function requirePositiveInteger(name: string, x: number): void {
  if (!(Number.isInteger(x) && x > 0)) throw new RangeError(`${name} must be a positive integer, got ${x}`);
}
