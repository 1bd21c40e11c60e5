// Whether the bullmq executor can reach its Redis, and what it says and does about it: the first
// connection error of an outage starts it (a warning that the run waits, when it has calls out);
// the next command that succeeds, or ioredis saying 'ready' again, ends it (a check of every
// call out, since a restarted Redis may have lost their jobs, and a warning that the run goes
// on); down past maxDownMs it gives up with RedisUnavailableError. Outages before the first
// connection only delay the start (redisConnection.ts waits for Redis then).
import type { Clock } from '../clock.js';
import { ExecutorUnavailableError } from './metricCallExecutor.js';

/**
 * Redis could not be reached for maxRedisDownMs: the run cannot go on until it is back. It stops
 * with stopReason 'error' naming Redis; the calls in flight are not logged, so a resume makes
 * them again (re-attaching to their jobs when Redis kept them).
 */
export class RedisUnavailableError extends ExecutorUnavailableError {
  /** 'RedisUnavailableError'. */
  override readonly name = 'RedisUnavailableError';
  /** A connection failure (src/evaluation/failureTally.ts), were it counted as one. */
  readonly kind = 'connection';
}

export interface RedisOutageOptions {
  /** host:port, as the lines name it. */
  where: string;
  maxDownMs: number;
  clock: Clock;
  /** Calls out now: a pause is announced only when the run waits for some. */
  callsOut: () => number;
  warn: (message: string) => void;
  /** Back after an outage: checks the calls out; resolves with how many jobs were submitted again. */
  recover: () => Promise<number>;
  /** Down past maxDownMs: fail what is out (later calls fail at once, `givenUp` says why). */
  giveUp: (error: RedisUnavailableError) => void;
  /** The check after an outage failed. */
  report: (error: Error) => void;
}

export class RedisOutage {
  /** Since when Redis has failed us without a success in between. */
  private downSince: number | undefined;
  private lastTrouble: Error | undefined;
  private announced = false;
  /** Set once connected: outages before only delay the start. */
  connected = false;
  /** Set once given up: every later call fails with it. */
  givenUp: RedisUnavailableError | undefined;

  constructor(private readonly options: RedisOutageOptions) {}

  get down(): boolean {
    return this.downSince !== undefined;
  }

  /** A connection error (not Redis refusing a command). */
  trouble(error: Error): void {
    if (this.givenUp) return;
    this.lastTrouble = error;
    if (this.downSince === undefined) {
      this.downSince = this.options.clock.now();
      const out = this.options.callsOut();
      if (this.connected && out > 0 && !this.announced) {
        this.announced = true;
        this.options.warn(
          `Redis at ${this.options.where} unreachable (${error.message}): ${out} metric call${out === 1 ? '' : 's'} wait for it; ` +
            `the run goes on when it is back, or stops after ${Math.round(this.options.maxDownMs / 1000)} s without it (resumable)`,
        );
      }
    }
    this.giveUpIfTooLong();
  }

  /** A command succeeded, or the connection is ready again. */
  answered(): void {
    if (this.downSince === undefined) return;
    const downForMs = this.options.clock.now() - this.downSince;
    this.downSince = undefined;
    if (!this.connected) return;
    // Jobs a restarted Redis lost are found now, not at the next poll.
    this.options.recover().then(
      (resubmitted) => {
        if (!this.announced) return;
        this.announced = false;
        const again = resubmitted > 0 ? `; ${resubmitted} job${resubmitted === 1 ? '' : 's'} it had lost submitted again` : '';
        this.options.warn(`Redis at ${this.options.where} answers again after ${(downForMs / 1000).toFixed(1)} s${again}; the run goes on`);
      },
      (error: unknown) => this.options.report(error instanceof Error ? error : new Error(String(error))),
    );
  }

  /**
   * Gives up once down for maxDownMs. Called on each error and on the executor's ticks: after the
   * first error of an outage ioredis reports failed reconnections as 'close', not as errors.
   */
  giveUpIfTooLong(): void {
    const now = this.options.clock.now();
    if (this.downSince === undefined || this.givenUp || now - this.downSince < this.options.maxDownMs) return;
    this.givenUp = new RedisUnavailableError(
      `Redis at ${this.options.where} unreachable for ${Math.round((now - this.downSince) / 1000)} s (${this.lastTrouble?.message ?? 'no answer'}); the run stops and can be resumed once Redis is back`,
    );
    this.options.giveUp(this.givenUp);
  }
}
