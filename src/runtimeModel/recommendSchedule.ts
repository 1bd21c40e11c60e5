// Chooses a schedule before a run: predicts every candidate (the paper's P x N shapes and async K
// that the workers can keep busy), ranks them by predicted wall-clock and takes the simplest
// within 5% of the fastest, since the model is not that precise and narrower, deterministic
// schedules adapt faster and reproduce exactly. Speed is not all: at a fixed budget, the wider a
// schedule the fewer rounds of proposals build on each other's results, and the benchmarks
// (bench/README.md) show quality falling once a run has fewer than about two dozen such
// generations. Schedules below that floor are ranked but not recommended.
import { predictWallClock, type WallClockPrediction } from './predictWallClock.js';
import type { ModelSchedule, WorkloadParams } from './workload.js';
import { asyncSearchWidth } from '../gepa/core/searchWidth.js';

/** The paper's shapes, simplest first. */
export const BATCHED_SHAPES: ReadonlyArray<readonly [parents: number, perParent: number]> = [
  [1, 1], [2, 1], [2, 2], [4, 1], [2, 4], [8, 1], [4, 4], [8, 2],
];
export const ASYNC_IN_FLIGHT: readonly number[] = [2, 4, 8, 16, 32];

/** Predictions within this fraction of the fastest count as ties. */
export const TIE_TOLERANCE = 0.05;

/**
 * Fewest generations (expected proposals / effective width) a recommended schedule may leave.
 * Batched steps at today's defaults on the three bench tasks, 144 seeds at 1,500 calls (61-91
 * proposals), paired with single: width 2 (31-46 generations) ends 0.009-0.025 below single's
 * best valset score, width 4 (15-23) 0.016-0.050 below, width 8 (8-11) 0.050-0.097 below
 * (bench/README.md, "The reference bridge"). Two dozen keeps the first and not the second; the
 * paper-scale runs (5,000 calls, valset 100) fall the same way. (It was 12 when only the demo
 * had been measured, where width 4 ended within 0.02.)
 */
export const MIN_GENERATIONS = 24;

/** One schedule in recommendSchedule's ranking. */
export interface RankedSchedule {
  /** "2x2" or "async 8". */
  label: string;
  /** The schedule. */
  schedule: ModelSchedule;
  /** Its predicted run. */
  prediction: WallClockPrediction;
  /** Expected proposals / effective width: how many rounds of proposals build on earlier results. */
  generations: number;
}

/** Options of recommendSchedule. */
export interface RecommendOptions {
  /** Default MIN_GENERATIONS; 0 ranks on speed alone. */
  minGenerations?: number;
}

/** recommendSchedule's answer. */
export interface ScheduleRecommendation {
  /** The recommended schedule with its prediction. */
  best: RankedSchedule;
  /** Why, in a sentence (e.g. "async 16: predicted 6.8 min, 4.5x faster than single ..."). */
  reason: string;
  /** Every candidate, fastest first. */
  ranked: RankedSchedule[];
}

/**
 * Async K is offered only up to K = W: beyond it an in-flight proposal cannot hold even one slot,
 * so the extra proposals only queue. Staleness is paid for through the generations floor (async
 * K counting as width K / 8: asyncSearchWidth, gepa/core/searchWidth.ts) and the tie-break toward narrow schedules. Among equal widths batched
 * goes first: it is deterministic for a seed.
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

/**
 * Ranks the batched and async schedules for a workload by predicted wall-clock and recommends the
 * simplest within 5% of the fastest among those leaving at least `minGenerations` (default 24)
 * generations of proposals (docs/schedules.md).
 */
export function recommendSchedule(params: WorkloadParams, options: RecommendOptions = {}): ScheduleRecommendation {
  const minGenerations = options.minGenerations ?? MIN_GENERATIONS;
  const candidates = candidateSchedules(params.workers).map((schedule): RankedSchedule => {
    const prediction = predictWallClock({ ...params, schedule });
    return { label: scheduleLabel(schedule), schedule, prediction, generations: prediction.proposals / effectiveWidth(schedule) };
  });
  const ranked = [...candidates].sort((x, y) => x.prediction.wallClockMs - y.prediction.wallClockMs || simpler(x, y, candidates));
  const single = candidates[0] as RankedSchedule;
  // Single is always eligible: with a budget too small for minGenerations proposals nothing wider helps.
  const eligible = ranked.filter((c) => c === single || c.generations >= minGenerations);
  const fastest = eligible[0] as RankedSchedule;
  const ties = eligible.filter((c) => c.prediction.wallClockMs <= fastest.prediction.wallClockMs * (1 + TIE_TOLERANCE));
  const best = [...ties].sort((x, y) => simpler(x, y, candidates))[0] as RankedSchedule;
  const excluded = ranked[0] !== fastest ? (ranked[0] as RankedSchedule) : undefined;
  return { best, reason: explain({ best, fastest, single, excluded, minGenerations }, ties.length, params.workers), ranked };
}

function width(schedule: ModelSchedule): number {
  return schedule.kind === 'batched' ? schedule.parents * schedule.perParent : schedule.inFlight;
}

export function effectiveWidth(schedule: ModelSchedule): number {
  return schedule.kind === 'batched' ? width(schedule) : asyncSearchWidth(schedule.inFlight);
}

/** Narrower first, then batched before async, then candidate order. */
function simpler(x: RankedSchedule, y: RankedSchedule, order: readonly RankedSchedule[]): number {
  return (
    width(x.schedule) - width(y.schedule) ||
    Number(x.schedule.kind === 'async') - Number(y.schedule.kind === 'async') ||
    order.indexOf(x) - order.indexOf(y)
  );
}

interface Choice {
  best: RankedSchedule;
  /** The fastest schedule that leaves enough generations. */
  fastest: RankedSchedule;
  single: RankedSchedule;
  /** The fastest of all, when it leaves too few generations. */
  excluded?: RankedSchedule;
  minGenerations: number;
}

function explain({ best, fastest, single, excluded, minGenerations }: Choice, tieCount: number, workers: number): string {
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
  parts.push(`${Math.round(best.generations)} generations of proposals`);
  if (excluded) {
    // Async included: overlap is lossless only with enough generations (asyncSearchWidth).
    const overlap = excluded.schedule.kind === 'async' ? ', even with children decided in launch order' : '';
    parts.push(
      `faster schedules such as ${excluded.label} (${formatDuration(excluded.prediction.wallClockMs)}) leave fewer than ${minGenerations} generations for this budget, and quality falls with fewer${overlap}`,
    );
  }
  return parts.join('; ');
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${(ms / 60_000).toFixed(1)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}
