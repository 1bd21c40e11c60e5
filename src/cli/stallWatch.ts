// Breaks the silence of a run whose calls have stopped finishing: a server that hangs gives no
// error for requestTimeoutMs times the attempts (minutes), so after a quiet spell the user is told
// what is going on and how to stop. Plain state on times passed in: the caller owns the clock.
import { formatDuration } from '../runtimeModel/index.js';

/** Quiet this long (no call finished, no retry) is worth a line; then again at each doubling. */
export const STALL_NOTICE_MS = 30_000;

export class StallWatch {
  private lastActivity: number;
  private noticeAt: number;

  constructor(
    now: number,
    private readonly thresholdMs: number = STALL_NOTICE_MS,
    /** What stopping does, for the line (e.g. how soon Ctrl-C stops). */
    private readonly howToStop: string = 'Ctrl-C stops the run',
  ) {
    this.lastActivity = now;
    this.noticeAt = now + thresholdMs;
  }

  /** A call finished, an attempt failed, anything the run reported: it is not hung. */
  activity(now: number): void {
    this.lastActivity = now;
    this.noticeAt = now + this.thresholdMs;
  }

  /** The line to print when the run has been quiet long enough, else undefined. */
  check(now: number): string | undefined {
    if (now < this.noticeAt) return undefined;
    const quiet = now - this.lastActivity;
    // 30 s, 1 min, 2 min, ...: a hung run is not a wall of identical lines.
    this.noticeAt = this.lastActivity + 2 * quiet;
    return (
      `no call has finished for ${formatDuration(quiet)}: the server is slow or not answering ` +
      `(each attempt waits up to requestTimeoutMs, and failed attempts are retried). ${this.howToStop}.`
    );
  }
}
