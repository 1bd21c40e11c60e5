// The runtime model checked against the run it describes: mean metric-call and reflection
// latencies, their spread, acceptance, skip and rebase rates are measured from the run, fed to
// predictWallClock with the run's schedule, workers and budget, and the prediction is set
// beside the measured wall-clock. Merges are not modelled (see runtimeModel.ts).
import { compareToMeasured, predictWallClock, type ModelSchedule, type PredictParams, type WallClockPrediction } from '../runtimeModel/index.js';
import type { OptimizeResult, ProposalRecord } from '../gepa/core/optimizeResult.js';
import type { SlotInterval } from '../evaluation/workerSlots.js';
import { errorMessage } from '../errors/errorMessage.js';

export interface RuntimeCheckInput {
  result: OptimizeResult;
  intervals: readonly SlotInterval[];
  workers: number;
  schedule: ModelSchedule;
  minibatchSize: number;
  /**
   * maxMetricCalls; when the run had none, or stopped before its budget (a target, a perfect
   * score, a STOP file), the calls it made stand in for it: the prediction is for the work done.
   */
  budget?: number;
}

export type RuntimeCheck =
  | {
      ok: true;
      params: PredictParams;
      prediction: WallClockPrediction;
      measuredMs: number;
      relativeError: number;
      measuredUtilization: number;
      /** Which work the prediction is for, in words: the budget, or the calls made before an early stop. */
      workNote: string;
    }
  | { ok: false; reason: string };

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (at - lo);
}

/**
 * The model's U(lo, hi) latency factor, centred on 1, whose 5th and 95th percentiles match the
 * measured ones; percentiles rather than min and max, so one stray call does not set it.
 */
export function jitterFromDurations(durations: readonly number[]): [number, number] {
  if (durations.length < 2) return [1, 1];
  const sorted = [...durations].sort((a, b) => a - b);
  const m = mean(sorted);
  if (!(m > 0)) return [1, 1];
  const halfWidth = (quantile(sorted, 0.95) - quantile(sorted, 0.05)) / (0.9 * 2 * m);
  return [Math.max(0.01, 1 - halfWidth), 1 + halfWidth];
}

/**
 * Async rebasing as the model takes it: the share of reflected proposals whose child was rebased
 * and judged a second time, and how many examples that second verdict was on (mean; records
 * from before the field existed count as the whole minibatch).
 */
export function measuredRebasing(proposals: readonly ProposalRecord[], minibatchSize: number): Pick<PredictParams, 'rebaseRate' | 'rebaseGateExamples'> {
  const reflected = proposals.filter((p) => p.kind === 'reflective' && p.outcome !== 'skipped');
  const rebased = reflected.filter((p) => p.rebasedFrom !== undefined);
  if (rebased.length === 0) return { rebaseRate: 0 };
  const gate = rebased.reduce((a, p) => a + (p.rebaseGateExamples ?? minibatchSize), 0) / rebased.length;
  return { rebaseRate: rebased.length / reflected.length, rebaseGateExamples: gate };
}

/**
 * Whether the budget ended the run, so that the prediction is for the whole budget: the model
 * drains a budget as the run does (the last proposals narrow, the remainder that pays for no
 * proposal is left). 'maxMetricCalls' alone does not say so: `stoppers.maxMetricCalls(n)` stops
 * with that reason too, and the result then names it (`stoppedBy`). A result of a version before
 * `stoppedBy` is read by the calls left: the budget's own refusal leaves fewer than a proposal's
 * worst case (two minibatch evaluations and a valset evaluation).
 */
function stoppedByBudget(result: OptimizeResult, budget: number | undefined, proposalWorstCase: number): boolean {
  if (result.stopReason !== 'maxMetricCalls' || result.stoppedBy !== undefined) return false;
  return budget === undefined || budget - result.metricCalls < proposalWorstCase;
}

function workNote(result: OptimizeResult, budget: number | undefined, spentBudget: boolean): string {
  if (spentBudget) {
    if (budget === undefined || result.metricCalls >= budget) return "the run's budget, all of it spent";
    return `the run's budget (it made ${result.metricCalls} calls; the ${budget - result.metricCalls} left could pay for no proposal, as the model assumes too)`;
  }
  const before = budget !== undefined ? ` before its budget of ${budget}` : '';
  const why = result.stoppedBy !== undefined ? `${result.stopReason}, by the stopper ${result.stoppedBy}` : result.stopReason;
  return `the calls the run made, since it stopped (${why})${before}; a prediction for the full budget would describe work it never did`;
}

export function checkRuntimeModel(input: RuntimeCheckInput): RuntimeCheck {
  const { result } = input;
  const durations = (kinds: (k: SlotInterval['kind']) => boolean) => input.intervals.filter((i) => kinds(i.kind)).map((i) => i.end - i.start);
  const metric = durations((k) => k !== 'reflection');
  const reflection = durations((k) => k === 'reflection');
  if (metric.length === 0) return { ok: false, reason: 'no metric calls were timed' };
  if (reflection.length === 0) return { ok: false, reason: 'no reflection calls were timed' };
  const metricCallMs = mean(metric);
  const reflectionMs = mean(reflection);
  if (!(metricCallMs > 0 && reflectionMs > 0)) return { ok: false, reason: 'calls took no measurable time' };
  if (!(result.elapsedMs > 0)) return { ok: false, reason: 'the run took no measurable time' };

  // Proposals cut short by a stop say nothing about acceptance.
  const reflective = result.proposals.filter((p) => p.kind === 'reflective' && !p.reason.startsWith('stopped before'));
  const accepted = reflective.filter((p) => p.outcome === 'accepted').length;
  const rejected = reflective.filter((p) => p.outcome === 'rejected').length;
  const skipped = reflective.filter((p) => p.outcome === 'skipped').length;
  const valsetSize = result.valSubscores[0]?.length ?? 0;
  if (valsetSize === 0) return { ok: false, reason: 'the valset is empty' };
  const spentBudget = stoppedByBudget(result, input.budget, 2 * input.minibatchSize + valsetSize);
  const params: PredictParams = {
    metricCallMs,
    reflectionMs,
    workers: input.workers,
    valsetSize,
    minibatchSize: input.minibatchSize,
    acceptanceRate: accepted + rejected > 0 ? accepted / (accepted + rejected) : 0,
    skipRate: reflective.length > 0 ? skipped / reflective.length : 0,
    budget: Math.max(valsetSize, spentBudget ? (input.budget ?? result.metricCalls) : result.metricCalls),
    jitter: jitterFromDurations(metric),
    schedule: input.schedule,
    ...(input.schedule.kind === 'async' ? measuredRebasing(result.proposals, input.minibatchSize) : {}),
  };
  try {
    const prediction = predictWallClock(params);
    return {
      ok: true,
      params,
      prediction,
      measuredMs: result.elapsedMs,
      relativeError: compareToMeasured(prediction.wallClockMs, result.elapsedMs),
      measuredUtilization: result.workerUtilization,
      workNote: workNote(result, input.budget, spentBudget),
    };
  } catch (error) {
    return { ok: false, reason: errorMessage(error) };
  }
}
