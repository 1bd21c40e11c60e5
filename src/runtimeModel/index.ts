// The runtime model as code: the source paper's formulas, a wall-clock predictor for batched and
// async schedules, the schedule recommender, and the predicted-vs-measured check made after each
// run. Plain functions over plain numbers: no clock, no randomness, no I/O.
//
// Assumptions, in one place:
// - One pool of W slots; every metric call holds one slot for ~T_e, every reflection one for
//   ~T_r, each times a U(lo, hi) jitter factor. One component is rewritten per proposal; merges
//   are not modelled.
// - A proposal costs b parent calls; unless skipped (skipRate), one reflection and b child calls;
//   if accepted (acceptanceRate, among those not skipped), V valset calls at once (selection
//   'all'). The seed's valset (V calls) runs first.
// - The budget is exact: each proposal reserves 2b + V before it starts, so the last steps narrow
//   and the run ends when one worst case no longer fits; spending is taken at its expectation.
// - Batched: the paper's system waits at every stage, so its step lasts the sum of its stages'
//   expected maxima (waves of W slots, binomial numbers of reflected and accepted proposals). Ours
//   has no barrier inside a step: with jittered latencies its step lands between that sum and the
//   longer of the latency path and the slot work over W (halfway at U(0.5, 1.5), measured). Async: steady-state throughput, the lower of
//   K / L_chain and W / slot-ms per proposal, each chain given between an even share W / K of the
//   slots and all of them, interpolated the same way.
// Room runtimeModel/: imported by report/, the command and the entries.
export {
  acceptanceTriggerProbability,
  paperSpeedup,
  strongScalingFloorMs,
  valsetLatencyMs,
  type PaperSpeedupParams,
} from './paperFormulas.js';
export { expectedMaxOfUniforms, stageMs, type Jitter } from './stageLatency.js';
export { compareToMeasured, predictWallClock, type WallClockPrediction } from './predictWallClock.js';
export {
  candidateSchedules,
  effectiveWidth,
  formatDuration,
  MIN_GENERATIONS,
  recommendSchedule,
  scheduleLabel,
  type RankedSchedule,
  type RecommendOptions,
  type ScheduleRecommendation,
} from './recommendSchedule.js';
export type { ModelSchedule, PredictParams, WorkloadParams } from './workload.js';
