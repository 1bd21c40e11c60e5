// The bullmq executor's failover: it follows each of its calls from the moment a worker takes it
// (the queue's 'active' event), and on every tick reads the workers' heartbeats (workerBeats.ts),
// asks lostCalls.ts which calls to run again, and has them moved back to the front of the queue
// with their lost worker's lock deleted: a live worker takes each at once, and a late answer of
// the lost worker is refused by Redis (BullMQ checks the lock when a job finishes). The job id is
// unchanged, so the call keeps its identity and is paid once in the budget; the first answer is
// the one kept. A batch job (a minibatch as one job) is followed, moved and counted as all its
// metric calls at once. A call lost with its worker more than maxWorkerLosses times is failed instead:
// it may be what kills them. Every tick that acts says so in one notice per reason. Redis is
// reached through FailoverRedis (bullmqExecutor.ts implements it), so this is tested without one.
import type { Clock } from '../clock.js';
import type { RerunNotice } from '../gepa/core/runEvent.js';
import { judgeCalls, latencyQuantile, nextDeadlineInMs, workerDeadlines, type FailoverPolicy, type Rerun } from './lostCalls.js';
import { HEARTBEAT_MS, type BeatReading } from './workerBeats.js';

/** A call of this executor, as failover follows it. */
export interface FollowedCall {
  /** The run-log keys (`candidateHash:exampleId:traces`) of its metric calls, for the notices: one, or a batch job's, one per example. */
  readonly logKeys: readonly string[];
  /** When a worker took it (the executor's clock); unset while it waits. */
  activeAt?: number;
  /** The worker that took it, once looked up. */
  owner?: string;
  /** Times it was moved back because its worker was lost. */
  losses: number;
  /** Moved back once for running too long. */
  rerunForOverdue: boolean;
}

/** What failover does in Redis. */
export interface FailoverRedis {
  /** Every worker's beat, and Redis's time. */
  readBeats(): Promise<BeatReading>;
  /** The worker (its BullMQ name) each job was last taken by. */
  owners(jobIds: readonly string[]): Promise<Array<string | undefined>>;
  /** Moves an active job back to the front of the queue, deleting its lock; false when it was no longer active. */
  moveBack(jobId: string): Promise<boolean>;
  /** Fails an active job for good with this message; false when it was no longer active. */
  fail(jobId: string, message: string): Promise<boolean>;
  /** Drops lost workers' beats (a worker that comes back beats again). */
  forget(workers: readonly string[]): Promise<void>;
}

export interface FailoverOptions {
  calls: ReadonlyMap<string, FollowedCall>;
  policy: FailoverPolicy;
  maxWorkerLosses: number;
  clock: Clock;
  notify: (notice: RerunNotice) => void;
}

/** Readings further apart than this (Redis time) allow no sooner verdict (lostCalls.ts's peerLostMs): a beat and a half. */
const SOONER_READING_GAP_MS = 1.5 * HEARTBEAT_MS;

/** Latencies kept for the overdue deadline: the most recent ones. */
const LATENCY_WINDOW = 512;

export class Failover {
  private readonly latencies: number[] = [];
  private nextLatency = 0;
  /** Redis's time at the last reading, and from when verdicts are trusted again after a gap in readings. */
  private lastReadingMs: number | undefined;
  private judgeFromMs = 0;
  private ticking = false;

  constructor(private readonly options: FailoverOptions) {}

  /** A worker took the call. */
  started(call: FollowedCall): void {
    call.activeAt = this.options.clock.now();
    call.owner = undefined;
  }

  /** The call is back in the queue (a retry's backoff, a stalled job recovered, moved back). */
  waiting(call: FollowedCall): void {
    call.activeAt = undefined;
    call.owner = undefined;
  }

  /** The call was answered: its latency feeds the overdue deadline. */
  answered(call: FollowedCall): void {
    if (call.activeAt === undefined) return;
    const latency = this.options.clock.now() - call.activeAt;
    if (this.latencies.length < LATENCY_WINDOW) this.latencies.push(latency);
    else this.latencies[this.nextLatency] = latency;
    this.nextLatency = (this.nextLatency + 1) % LATENCY_WINDOW;
  }

  /**
   * One look at the workers; a tick still running makes the next one a no-op. Resolves with how
   * long until a worker passes its deadline, when one will (a tick then decides it on time).
   */
  async tick(redis: FailoverRedis): Promise<number | undefined> {
    if (this.ticking) return undefined;
    this.ticking = true;
    try {
      return await this.look(redis);
    } finally {
      this.ticking = false;
    }
  }

  private async look(redis: FailoverRedis): Promise<number | undefined> {
    const { calls, policy } = this.options;
    const reading = await redis.readBeats();
    const sinceLastMs = this.lastReadingMs === undefined ? Infinity : reading.nowMs - this.lastReadingMs;
    // After a gap in our own readings (Redis paused, our link down) every beat looks old: let the
    // workers beat again before judging them.
    if (sinceLastMs > policy.workerLostMs) this.judgeFromMs = reading.nowMs + 2 * HEARTBEAT_MS;
    this.lastReadingMs = reading.nowMs;
    if (reading.nowMs < this.judgeFromMs) return undefined;
    // The sooner verdict only between readings close together: after a shorter pause of Redis,
    // the beats it holds back land in any order, some workers' before this reading, some after.
    const deadlines = workerDeadlines(reading.workers, policy, sinceLastMs <= SOONER_READING_GAP_MS);
    const p99 = latencyQuantile(this.latencies, 0.99);
    const inFlight = () => {
      const now = this.options.clock.now();
      return [...calls]
        .filter(([, call]) => call.activeAt !== undefined)
        .map(([jobId, call]) => ({ jobId, runningMs: now - call.activeAt!, owner: call.owner, rerunForOverdue: call.rerunForOverdue }));
    };
    let verdict = judgeCalls(inFlight(), reading.workers, p99, policy, deadlines);
    if (verdict.needOwner.length > 0) {
      const owners = await redis.owners(verdict.needOwner);
      verdict.needOwner.forEach((jobId, i) => {
        const call = calls.get(jobId);
        if (call && call.activeAt !== undefined) call.owner = owners[i];
      });
      verdict = judgeCalls(inFlight(), reading.workers, p99, policy, deadlines);
    }
    if (verdict.rerun.length > 0) await this.act(redis, verdict.rerun, reading.nowMs);
    if (verdict.lostWorkers.length > 0) await redis.forget(verdict.lostWorkers);
    return nextDeadlineInMs(reading.workers, deadlines);
  }

  /** Moves the calls back (or fails those lost too often), then tells what was done, one notice per reason. */
  private async act(redis: FailoverRedis, reruns: readonly Rerun[], atMs: number): Promise<void> {
    const { calls, maxWorkerLosses } = this.options;
    const done = await Promise.all(
      reruns.map(async (rerun): Promise<{ rerun: Rerun; reason: RerunNotice['reason'] } | undefined> => {
        const call = calls.get(rerun.jobId);
        if (!call) return undefined;
        const givingUp = rerun.reason === 'worker lost' && call.losses >= maxWorkerLosses;
        const moved = givingUp
          ? await redis.fail(rerun.jobId, `the metric call was lost with its worker ${call.losses + 1} times (the last: ${rerun.worker ?? 'unknown'}); it may be what kills them, so it is not run again`)
          : await redis.moveBack(rerun.jobId);
        // Answered meanwhile: nothing was run again.
        if (!moved) return undefined;
        this.waiting(call);
        if (rerun.reason === 'worker lost') call.losses++;
        else call.rerunForOverdue = true;
        return { rerun, reason: givingUp ? 'lost too often' : rerun.reason };
      }),
    );
    const byReason = new Map<RerunNotice['reason'], Rerun[]>();
    for (const entry of done) if (entry) byReason.set(entry.reason, [...(byReason.get(entry.reason) ?? []), entry.rerun]);
    for (const [reason, group] of byReason) {
      // A batch job moved is all its metric calls run again.
      const keys = group.flatMap((r) => calls.get(r.jobId)?.logKeys ?? [r.jobId]);
      this.options.notify({
        reason,
        calls: keys.length,
        workers: [...new Set(group.map((r) => r.worker ?? 'unknown'))].sort(),
        waitedMs: Math.round(Math.max(...group.map((r) => r.waitedMs))),
        keys,
        atMs,
      });
    }
  }
}
