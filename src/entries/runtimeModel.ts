/**
 * `gepa-actors/runtime-model`: the paper's runtime model as code: predict a run's wall-clock from
 * measured latencies, and recommend a schedule for a budget and a worker count. docs/schedules.md.
 *
 * @module gepa-actors/runtime-model
 */
export {
  predictWallClock,
  recommendSchedule,
  type ModelSchedule,
  type PredictParams,
  type RankedSchedule,
  type RecommendOptions,
  type ScheduleRecommendation,
  type WallClockPrediction,
  type WorkloadParams,
} from '../runtimeModel/index.js';
