// Which metric calls in flight on BullMQ workers to run again elsewhere: those whose worker is
// lost (its heartbeat older than the deadline: killed, frozen, cut off the network) and those
// running far longer than calls do (a hung call on a live worker), judged from the workers'
// beats (workerBeats.ts) and the latencies observed. A worker silent while its peers beat on time
// is lost sooner (peerLostMs) than one silent while they are late too (workerLostMs): a stall of
// the whole host, of Redis or of the network delays every beat alike, a dead worker only its own.
// Pure: the executor reads Redis, asks this, and moves the chosen jobs back to the queue
// (bullmqExecutor.ts).
import { HEARTBEAT_MS, type WorkerBeat } from './workerBeats.js';

/** A call a worker has taken and not answered. */
export interface CallInFlight {
  jobId: string;
  /** Since a worker took it, on the executor's clock. */
  runningMs: number;
  /** The worker that took it (its BullMQ name), once looked up. */
  owner?: string;
  /** Already run again for running too long: not again for that (a slow call is slow anywhere). */
  rerunForOverdue: boolean;
}

/** When a worker counts as lost and a call as overdue. */
export interface FailoverPolicy {
  /** A worker whose last beat is older than this, or than GAP_FACTOR x its recent gap between beats, is lost. */
  workerLostMs: number;
  /**
   * Sooner, while enough of the other workers beat on time (workerDeadlines): a worker whose
   * last beat is older than this, or than PEER_GAP_FACTOR x its recent gap, is lost. Undefined:
   * workerLostMs alone.
   */
  peerLostMs?: number;
  /** A call counts as overdue past max(overdueFloorMs, overdueFactor x the p99 of observed latencies). */
  overdueFloorMs: number;
  overdueFactor: number;
}

/** A worker process often starved of CPU for a while beats with such gaps: wait three of them. */
export const GAP_FACTOR = 3;

/** The sooner verdict waits this many of a worker's recent gaps at least (a healthy beat's gap is ~HEARTBEAT_MS). */
export const PEER_GAP_FACTOR = 2;

/**
 * A beat and a half. For a sooner verdict, peers must have beaten at least this long after the
 * silent worker's last beat; for a look at the sooner deadline, within this long. With one beat
 * more this is peerLostMs's default: a stall of the whole host (every beat held up alike) cannot
 * pass for one worker's silence, as a silent worker's age passes 250 ms only when the stall
 * passes 150 ms, and then no peer beat in it.
 */
export const ON_TIME_MS = 1.5 * HEARTBEAT_MS;

/** For a sooner verdict, at least this many other workers beat on time, and at least half of them. */
export const PEER_QUORUM = 2;

/** Observed latencies needed before a p99 means something. */
export const MIN_LATENCY_SAMPLES = 20;

export type RerunReason = 'worker lost' | 'call overdue';

/** A call to run again, and why. */
export interface Rerun {
  jobId: string;
  reason: RerunReason;
  /** The worker it ran on, when known. */
  worker?: string;
  /** How long the run waited on it past its last sign of progress (the lost worker's last beat; for an overdue call, the time past the p99). */
  waitedMs: number;
}

export interface Verdict {
  /** Calls whose worker must be looked up before they can be judged. */
  needOwner: string[];
  /** Calls to run again. */
  rerun: Rerun[];
  /** Workers found lost. */
  lostWorkers: string[];
}

export function workerDeadlineMs(beat: WorkerBeat, policy: FailoverPolicy): number {
  return Math.max(policy.workerLostMs, GAP_FACTOR * beat.gapMs);
}

/**
 * Each worker's deadline in one reading of the beats: the sooner one (peerLostMs) when enough of
 * the other workers (PEER_QUORUM, and half of them) beat on time, else workerLostMs's; never
 * later than workerLostMs's. A worker past the sooner deadline is lost when they beat at least
 * ON_TIME_MS after its last beat (so beats that are late, but come, count); one not yet past it
 * gets it when they beat within the last ON_TIME_MS (when to look again).
 */
export function workerDeadlines(workers: ReadonlyMap<string, WorkerBeat>, policy: FailoverPolicy, soonerAllowed = true): Map<string, number> {
  const ages = [...workers.values()].map((beat) => beat.ageMs);
  const quorum = Math.max(PEER_QUORUM, Math.ceil((workers.size - 1) / 2));
  /** Workers other than the one of `ownAge` younger than `maxAge` (it is not younger than itself). */
  const peersYounger = (maxAge: number, ownAge: number) => ages.filter((age) => age < maxAge).length - (ownAge < maxAge ? 1 : 0);
  const deadlines = new Map<string, number>();
  for (const [name, beat] of workers) {
    const late = workerDeadlineMs(beat, policy);
    const soonerMs = policy.peerLostMs === undefined ? late : Math.min(late, Math.max(policy.peerLostMs, PEER_GAP_FACTOR * beat.gapMs));
    const peersOnTime = beat.ageMs > soonerMs ? peersYounger(beat.ageMs - ON_TIME_MS, beat.ageMs) : peersYounger(ON_TIME_MS + 1, beat.ageMs);
    deadlines.set(name, soonerAllowed && peersOnTime >= quorum ? soonerMs : late);
  }
  return deadlines;
}

/** How long until the first worker still within its deadline passes it (a reading then decides sooner than the next regular one); undefined: none. */
export function nextDeadlineInMs(workers: ReadonlyMap<string, WorkerBeat>, deadlines: ReadonlyMap<string, number>): number | undefined {
  let next: number | undefined;
  for (const [name, beat] of workers) {
    const left = (deadlines.get(name) ?? Infinity) - beat.ageMs;
    if (left >= 0 && left < (next ?? Infinity)) next = left;
  }
  return next;
}

export function overdueDeadlineMs(p99Ms: number | undefined, policy: FailoverPolicy): number | undefined {
  return p99Ms === undefined ? undefined : Math.max(policy.overdueFloorMs, policy.overdueFactor * p99Ms);
}

/**
 * Judges the calls in flight: a worker is lost past its deadline (`deadlines`, by default
 * workerDeadlines'). A call whose worker is not known yet is looked up when some worker
 * is lost, or when it has run longer than a worker may stay silent (it may sit on a worker that
 * died before its first beat). A worker absent from the beats (it never beat, or its entry was
 * dropped) holds a call lost once the call has run longer than `workerLostMs`.
 */
export function judgeCalls(
  calls: Iterable<CallInFlight>,
  workers: ReadonlyMap<string, WorkerBeat>,
  p99Ms: number | undefined,
  policy: FailoverPolicy,
  deadlines: ReadonlyMap<string, number> = workerDeadlines(workers, policy),
): Verdict {
  const lostWorkers = [...workers].filter(([name, beat]) => beat.ageMs > deadlines.get(name)!).map(([name]) => name);
  const overdue = overdueDeadlineMs(p99Ms, policy);
  const needOwner: string[] = [];
  const rerun: Rerun[] = [];
  for (const call of calls) {
    if (call.owner === undefined) {
      if (lostWorkers.length > 0 || call.runningMs > Math.min(policy.workerLostMs, overdue ?? Infinity)) needOwner.push(call.jobId);
      continue;
    }
    const beat = workers.get(call.owner);
    if (beat === undefined ? call.runningMs > policy.workerLostMs : beat.ageMs > deadlines.get(call.owner)!) {
      rerun.push({ jobId: call.jobId, reason: 'worker lost', worker: call.owner, waitedMs: Math.min(call.runningMs, beat?.ageMs ?? call.runningMs) });
    } else if (overdue !== undefined && !call.rerunForOverdue && call.runningMs > overdue) {
      rerun.push({ jobId: call.jobId, reason: 'call overdue', worker: call.owner, waitedMs: call.runningMs - (p99Ms ?? 0) });
    }
  }
  return { needOwner, rerun, lostWorkers };
}

/** The q-quantile (0..1) of the samples, nearest rank; undefined below MIN_LATENCY_SAMPLES. */
export function latencyQuantile(samples: readonly number[], q: number): number | undefined {
  if (samples.length < MIN_LATENCY_SAMPLES) return undefined;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}
