// What schedule 'auto' observes of a running run, as plain data the optimizer keeps in its
// context: the seed's valset evaluation (a round of metric calls per wave of W), the first
// proposals' parent minibatches (a round each), their reflections (from launch to verdict, less
// a parent and a child round), and how the proposals that ended went (skipped, accepted, the
// metric calls they spent). autoDecision (autoSchedule.ts) decides from the view it gives, at a
// few milestones only (autoMilestone), so a run's shape changes a handful of times, each a logged
// decision with its reason.
import type { ScheduleDecisionRecord } from '../gepa/core/optimizeResult.js';
import { AUTO_MIN_CHANGE, type AutoShape, type AutoView } from './autoSchedule.js';
import type { Speculation } from '../settingValues.js';

/** Observations kept: the first few are enough, and the context stays small. */
const KEEP = 8;

/** auto's observations so far. */
export interface AutoWatch {
  /** When the seed's valset evaluation was asked for (ms on the run's clock). */
  seedAskedAt?: number;
  /** Latencies of metric-call rounds observed (the seed's per wave, then parent minibatches). */
  rounds: number[];
  /** Reflection latencies inferred (launch to verdict, less two rounds). */
  reflections: number[];
  /** Launch times of the first proposals, by id, until their verdict or end. */
  launchedAt: Record<string, number>;
  ended: number;
  skipped: number;
  accepted: number;
  proposalCalls: number;
  /** The milestone the last decision was taken at (-1: none yet). */
  decidedAt: number;
  /** Every decision taken, for the result and the report. */
  decisions: ScheduleDecisionRecord[];
}

export const startAutoWatch = (): AutoWatch => ({ rounds: [], reflections: [], launchedAt: {}, ended: 0, skipped: 0, accepted: 0, proposalCalls: 0, decidedAt: -1, decisions: [] });

const median = (xs: readonly number[]): number | undefined => {
  if (xs.length === 0) return undefined;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
};

const more = (xs: readonly number[], x: number): number[] => (xs.length >= KEEP ? [...xs] : [...xs, x]);

/** The seed's valset evaluation answered at `now`: one round per wave of `workers` calls. */
export function watchSeed(w: AutoWatch, now: number, valsetSize: number, workers: number): AutoWatch {
  if (w.seedAskedAt === undefined) return w;
  return { ...w, rounds: more(w.rounds, (now - w.seedAskedAt) / Math.ceil(valsetSize / workers)) };
}

/** A proposal launched at `now` (only the first few are timed). */
export function watchLaunch(w: AutoWatch, id: string, now: number): AutoWatch {
  if (Object.keys(w.launchedAt).length >= KEEP || w.reflections.length >= KEEP) return w;
  return { ...w, launchedAt: { ...w.launchedAt, [id]: now } };
}

/** A timed proposal's parent minibatch answered at `now`: a round. */
export function watchParent(w: AutoWatch, id: string, now: number): AutoWatch {
  const at = w.launchedAt[id];
  return at === undefined ? w : { ...w, rounds: more(w.rounds, now - at) };
}

/** A timed proposal's verdict at `now`: its reflection took what is left of the time after a parent and a child round. */
export function watchVerdict(w: AutoWatch, id: string, now: number): AutoWatch {
  const at = w.launchedAt[id];
  if (at === undefined) return w;
  const { [id]: _, ...launchedAt } = w.launchedAt;
  const round = median(w.rounds) ?? 0;
  return { ...w, launchedAt, reflections: more(w.reflections, Math.max(round, now - at - 2 * round)) };
}

/** A proposal ended: how, and the metric calls it paid. */
export function watchEnd(w: AutoWatch, id: string, outcome: 'accepted' | 'rejected' | 'skipped' | undefined, paidCalls: number): AutoWatch {
  const { [id]: _, ...launchedAt } = w.launchedAt;
  return {
    ...w,
    launchedAt,
    ended: w.ended + 1,
    skipped: w.skipped + (outcome === 'skipped' ? 1 : 0),
    accepted: w.accepted + (outcome === 'accepted' ? 1 : 0),
    proposalCalls: w.proposalCalls + paidCalls,
  };
}

/**
 * How far the observations have come: 0 at the start, then 1 once a round is seen (the seed), 2
 * once a reflection is, 3 once four are, 4 once 8 proposals ended, 5 once 32 did. auto decides
 * again when this grows.
 */
export function autoMilestone(w: AutoWatch): number {
  return [w.rounds.length >= 1, w.reflections.length >= 1, w.reflections.length >= 4, w.ended >= 8, w.ended >= 32].filter(Boolean).length;
}

/** What autoDecision reads, from the run's settings and the observations. */
export function autoViewOf(w: AutoWatch, run: { workers: number; budget?: number; valsetSize: number; minibatchSize: number; speculate?: Speculation; combines?: boolean }): AutoView {
  const roundMs = median(w.rounds);
  const reflectionMs = median(w.reflections);
  return {
    ...run,
    ...(roundMs !== undefined ? { roundMs } : {}),
    ...(reflectionMs !== undefined ? { reflectionMs } : {}),
    ended: w.ended,
    skipped: w.skipped,
    accepted: w.accepted,
    proposalCalls: w.proposalCalls,
  };
}

/**
 * A decision the run does not act on: the shape it has, or one whose K is within
 * AUTO_MIN_CHANGE - 1 of it (a count that moves by one with the noise of a few observations).
 */
export const keepsShape = (decided: AutoShape, current: { inFlight: number; heldSlot: string }): boolean =>
  decided.heldSlot === current.heldSlot && Math.abs(decided.inFlight - current.inFlight) < AUTO_MIN_CHANGE;
