// Chooses a schedule before a run: predicts every candidate (the paper's P x N shapes and async K
// that the workers can keep busy), ranks them by predicted wall-clock and takes the simplest
// within 5% of the fastest, since the model is not that precise and narrower, deterministic
// schedules adapt faster and reproduce exactly.
import { predictWallClock, type WallClockPrediction } from './predictWallClock.js';
import type { ModelSchedule, WorkloadParams } from './workload.js';

/** The paper's shapes, simplest first. */
export const BATCHED_SHAPES: ReadonlyArray<readonly [parents: number, perParent: number]> = [
  [1, 1], [2, 1], [2, 2], [4, 1], [2, 4], [8, 1], [4, 4], [8, 2],
];
export const ASYNC_IN_FLIGHT: readonly number[] = [2, 4, 8, 16, 32];

/** Predictions within this fraction of the fastest count as ties. */
export const TIE_TOLERANCE = 0.05;

export interface RankedSchedule {
  /** "2x2" or "async 8". */
  label: string;
  schedule: ModelSchedule;
  prediction: WallClockPrediction;
}

export interface ScheduleRecommendation {
  best: RankedSchedule;
  reason: string;
  /** Every candidate, fastest first. */
  ranked: RankedSchedule[];
}

/**
 * Async K is offered only up to K = W: beyond it an in-flight proposal cannot hold even one slot,
 * so the extra proposals only queue. No separate staleness penalty: a proposal of a k-wide step
 * is as blind to its k - 1 siblings as an async proposal to the K - 1 others in flight, so
 * staleness grows with width in both schedules, and the tie-break toward narrow schedules is
 * what pays for it. Among equal widths batched goes first: it is deterministic for a seed.
 */
export function candidateSchedules(workers: number): ModelSchedule[] {
  return [
    ...BATCHED_SHAPES.map(([parents, perParent]): ModelSchedule => ({ kind: 'batched', parents, perParent })),
    ...ASYNC_IN_FLIGHT.filter((k) => k <= workers).map((inFlight): ModelSchedule => ({ kind: 'async', inFlight })),
  ];
}

export function scheduleLabel(schedule: ModelSchedule): string {
  return schedule.kind === 'batched' ? `${schedule.parents}x${schedule.perParent}` : `async ${schedule.inFlight}`;
}

export function recommendSchedule(params: WorkloadParams): ScheduleRecommendation {
  const candidates = candidateSchedules(params.workers).map(
    (schedule): RankedSchedule => ({ label: scheduleLabel(schedule), schedule, prediction: predictWallClock({ ...params, schedule }) }),
  );
  const ranked = [...candidates].sort((x, y) => x.prediction.wallClockMs - y.prediction.wallClockMs || simpler(x, y, candidates));
  const fastest = ranked[0] as RankedSchedule;
  const ties = ranked.filter((c) => c.prediction.wallClockMs <= fastest.prediction.wallClockMs * (1 + TIE_TOLERANCE));
  const best = [...ties].sort((x, y) => simpler(x, y, candidates))[0] as RankedSchedule;
  const single = candidates[0] as RankedSchedule;
  return { best, reason: explain(best, fastest, single, ties.length, params.workers), ranked };
}

function width(schedule: ModelSchedule): number {
  return schedule.kind === 'batched' ? schedule.parents * schedule.perParent : schedule.inFlight;
}

/** Narrower first, then batched before async, then candidate order. */
function simpler(x: RankedSchedule, y: RankedSchedule, order: readonly RankedSchedule[]): number {
  return (
    width(x.schedule) - width(y.schedule) ||
    Number(x.schedule.kind === 'async') - Number(y.schedule.kind === 'async') ||
    order.indexOf(x) - order.indexOf(y)
  );
}

function explain(best: RankedSchedule, fastest: RankedSchedule, single: RankedSchedule, tieCount: number, workers: number): string {
  const p = best.prediction;
  const parts = [`${best.label}: predicted ${formatDuration(p.wallClockMs)}`];
  if (best !== single) {
    const speedup = single.prediction.wallClockMs / p.wallClockMs;
    parts[0] += `, ${speedup.toFixed(1)}x faster than single (${formatDuration(single.prediction.wallClockMs)})`;
  }
  const bound = p.bottleneck === 'workers' ? `bound by the ${workers} worker slot${workers === 1 ? '' : 's'}` : 'bound by latency';
  parts.push(`${bound}, ${Math.round(p.utilization * 100)}% of worker time busy`);
  if (best !== fastest) {
    parts.push(`simplest of ${tieCount} schedules within ${TIE_TOLERANCE * 100}% of the fastest (${fastest.label}, ${formatDuration(fastest.prediction.wallClockMs)})`);
  }
  return parts.join('; ');
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${(ms / 60_000).toFixed(1)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}
