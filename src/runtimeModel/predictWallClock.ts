// Predicts a run's wall-clock from measured latencies, for either schedule, under one pool of W
// slots shared by metric and reflection calls and an exact metric-call budget. Batched steps are
// modelled as a critical path of stages the step waits for; async runs as a throughput limited
// either by latency (K chains in flight) or by the slots. Assumptions: see runtimeModel.ts.
import { drainBudget, type WidthRun } from './budgetDrain.js';
import { binomialPmf, meanJitterFactor, stageMs } from './stageLatency.js';
import { proposalCost, requireValidSchedule, resolveWorkload, type ModelSchedule, type PredictParams, type Workload } from './workload.js';

/** The runtime model's prediction for one schedule. */
export interface WallClockPrediction {
  /** The schedule predicted. */
  schedule: ModelSchedule;
  /** Predicted wall-clock of the run, in ms. */
  wallClockMs: number;
  /** The seed's valset evaluation, before the first proposal. */
  seedMs: number;
  /** Batched: steps; async: one step per proposal, as the optimizer numbers them. */
  steps: number;
  /** Proposals the budget pays for. */
  proposals: number;
  /** Never above the budget: every proposal reserves its worst case first. */
  expectedMetricCalls: number;
  /** Reflection calls expected. */
  expectedReflections: number;
  /** Predicted sum of slot-busy time, in ms. */
  busySlotMs: number;
  /** Predicted busy fraction of the slots: busySlotMs / (W wallClockMs). */
  utilization: number;
  /** The wall-clock the same run would take with unlimited slots. */
  latencyFloorMs: number;
  /** busySlotMs / W: the wall-clock if no slot were ever idle. */
  capacityFloorMs: number;
  /** The larger of the two floors: what more of would shorten the run most. */
  bottleneck: 'latency' | 'workers';
}

/** Predicts the wall-clock of a run of `params.schedule` from measured latencies and rates (src/runtimeModel/). */
export function predictWallClock(params: PredictParams): WallClockPrediction {
  requireValidSchedule(params.schedule);
  const w = resolveWorkload(params);
  const cost = proposalCost(w);
  const proposalBudget = w.budget - w.valsetSize;
  const { schedule } = params;

  const maxWidth = schedule.kind === 'batched' ? schedule.parents * schedule.perParent : schedule.inFlight;
  // A batched unit is a step of `width` proposals; an async unit is one proposal among `width` in flight.
  const runs = drainBudget({
    budget: proposalBudget,
    maxWidth,
    worstCallsPerProposal: cost.worstCalls,
    spendPerUnit: (width) => (schedule.kind === 'batched' ? width * cost.expectedCalls : cost.expectedCalls),
  });
  const unitMs = (width: number, slots: number, slotBound: number) =>
    schedule.kind === 'batched' ? batchedStepMs(w, width, slots) : asyncProposalMs(w, width, slots, slotBound);
  const wallClockMs = seedValsetMs(w, w.workers) + sumOver(runs, (width) => unitMs(width, w.workers, cost.busySlotMs));
  const latencyFloorMs = seedValsetMs(w, Infinity) + sumOver(runs, (width) => unitMs(width, Infinity, 0));
  const steps = sumOver(runs, () => 1);
  const proposals = sumOver(runs, (width) => (schedule.kind === 'batched' ? width : 1));
  const busySlotMs = w.valsetSize * w.metricCallMs * meanJitterFactor(w.jitter) + proposals * cost.busySlotMs;
  const capacityFloorMs = busySlotMs / w.workers;
  return {
    schedule,
    wallClockMs,
    seedMs: seedValsetMs(w, w.workers),
    steps,
    proposals,
    expectedMetricCalls: w.valsetSize + proposals * cost.expectedCalls,
    expectedReflections: proposals * cost.expectedReflections,
    busySlotMs,
    utilization: busySlotMs / (w.workers * wallClockMs),
    latencyFloorMs,
    capacityFloorMs,
    bottleneck: capacityFloorMs >= latencyFloorMs ? 'workers' : 'latency',
  };
}

/** Signed relative error of a prediction: +0.1 means the model predicted 10% too slow. */
export function compareToMeasured(predictedMs: number, measuredMs: number): number {
  if (!(measuredMs > 0 && Number.isFinite(measuredMs))) throw new RangeError(`measuredMs must be a positive number, got ${measuredMs}`);
  return (predictedMs - measuredMs) / measuredMs;
}

function sumOver(runs: readonly WidthRun[], perUnit: (width: number) => number): number {
  return runs.reduce((total, run) => total + run.count * perUnit(run.width), 0);
}

/** ceil(V / W) waves of T_e before any proposal: every later step needs the seed's scores. */
function seedValsetMs(w: Workload, slots: number): number {
  return stageMs(w.valsetSize, w.metricCallMs, slots, w.jitter);
}

/**
 * Expected time of one batched step of `tasks` proposals on `slots` slots: the stages the step
 * waits for, each as long as its slowest call. Parent minibatches (tasks * b calls), then, for
 * the r proposals not skipped, r concurrent reflections, r * b child calls and the valset of the
 * x children accepted. Summing per-stage maxima is what a barrier per stage costs (the paper's
 * system); ours overlaps stages of different proposals, so this is an upper bound when a stage
 * needs several waves, and exact when each stage fits the slots and latencies are fixed.
 */
function batchedStepMs(w: Workload, tasks: number, slots: number): number {
  if (!Number.isFinite(slots)) return stagedStepMs(w, tasks, slots);
  // Our runtime has no barrier inside a step: a proposal's child evaluation starts when its own
  // reflection returns and its valset evaluation when it is accepted, so the stages of different
  // proposals overlap and idle slots are filled. The barrier-per-stage sum is an upper bound; the
  // longer of the latency path (unlimited slots) and the slot work spread over W a lower bound.
  // With fixed latencies the proposals move in lock-step and the staged sum is exact; the more
  // the latencies spread, the more the stages interleave (measured: about halfway at U(0.5, 1.5)).
  const upperMs = stagedStepMs(w, tasks, slots);
  if (tasks === 1) return upperMs;
  const lowerMs = Math.max(stagedStepMs(w, tasks, Infinity), (tasks * proposalCost(w).busySlotMs) / slots);
  return upperMs - overlapWeight(w) * (upperMs - lowerMs);
}

/** How far between the upper and lower bound a run lands: 0 for fixed latencies, 1/2 for U(0.5, 1.5). */
function overlapWeight(w: Workload): number {
  const [lo, hi] = w.jitter;
  return 0.5 * Math.min(1, hi - lo);
}

/** The paper's barrier-per-stage step on `slots` slots (exact for fixed latencies that fit). */
function stagedStepMs(w: Workload, tasks: number, slots: number): number {
  const parentsMs = stageMs(tasks * w.minibatchSize, w.metricCallMs, slots, w.jitter);
  const afterParents = binomialPmf(tasks, 1 - w.skipRate).reduce((total, p, reflected) => {
    if (reflected === 0) return total;
    const reflectMs = stageMs(reflected, w.reflectionMs, slots, w.jitter);
    const childrenMs = stageMs(reflected * w.minibatchSize, w.metricCallMs, slots, w.jitter);
    return total + p * (reflectMs + childrenMs + expectedValsetStageMs(w, reflected, slots));
  }, 0);
  return parentsMs + afterParents;
}

/**
 * E over X ~ Binomial(children, a) of the valset stage for X accepted children. Taking the
 * expectation of the stage, not the stage of the expected count, is what makes a step pay L_val
 * with probability q_k = 1 - (1 - a)^k rather than every step (the paper's point).
 */
function expectedValsetStageMs(w: Workload, children: number, slots: number): number {
  return binomialPmf(children, w.acceptanceRate).reduce(
    (total, p, accepted) => total + p * stageMs(accepted * w.valsetSize, w.metricCallMs, slots, w.jitter),
    0,
  );
}

/**
 * Wall-clock per proposal in a steady state with `inFlight` proposals running: the slower of the
 * latency bound (inFlight chains, each L_chain long, finish every L_chain / inFlight) and the slot
 * bound (the slots deliver W slot-ms per ms, a proposal needs busySlotMs). Pass busySlotMs = 0
 * for the latency bound alone.
 */
function asyncProposalMs(w: Workload, inFlight: number, slots: number, busySlotMs: number): number {
  const evenShare = Math.max(asyncChainMs(w, inFlight, slots) / inFlight, busySlotMs / slots);
  if (!Number.isFinite(slots)) return evenShare;
  // An even share W / K per chain is pessimistic (a reflecting chain leaves its share to the
  // others); all W slots per chain is optimistic. Interpolate as for batched steps.
  const fullShare = Math.max(asyncChainMs(w, inFlight, slots * inFlight) / inFlight, busySlotMs / slots);
  return evenShare - overlapWeight(w) * (evenShare - fullShare);
}

/**
 * Expected latency of one async proposal's chain: parent minibatch, then (unless skipped) its
 * reflection, child minibatch, when rebased the rebased child and its new base on the
 * minibatch, and, if accepted, its valset. Each proposal is assumed to get an
 * even share W / K of the slots (at least one); this is pessimistic when others are busy
 * reflecting and leave their share idle for a valset evaluation to use.
 */
function asyncChainMs(w: Workload, inFlight: number, slots: number): number {
  const share = Math.max(1, slots / inFlight);
  const minibatchMs = stageMs(w.minibatchSize, w.metricCallMs, share, w.jitter);
  const reflectMs = stageMs(1, w.reflectionMs, share, w.jitter);
  const valsetMs = stageMs(w.valsetSize, w.metricCallMs, share, w.jitter);
  // A rebased child and its new base, on the gate's examples together.
  const rebaseMs = w.rebaseRate * stageMs(2 * w.rebaseGateExamples, w.metricCallMs, share, w.jitter);
  return minibatchMs + (1 - w.skipRate) * (reflectMs + minibatchMs + rebaseMs + w.acceptanceRate * valsetMs);
}
