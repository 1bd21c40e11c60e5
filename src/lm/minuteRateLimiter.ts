// Client-side per-minute rate limits (requests and tokens) for the OpenAI-compatible models:
// a sliding one-minute window kept on the injected clock, so every wait is a clock sleep and
// simulated runs stay deterministic.
import { sleep } from '../clock.js';
import type { Clock } from '../clock.js';

const RATE_WINDOW_MS = 60_000;

export interface RateTicket {
  at: number;
  tokens: number;
}

/** Requests and tokens over the last minute; a caller waits (on the clock) until both fit. */
export class MinuteRateLimiter {
  private window: RateTicket[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly rpm: number | undefined,
    private readonly tpm: number | undefined,
  ) {}

  async acquire(tokens: number, signal: AbortSignal): Promise<RateTicket> {
    for (;;) {
      signal.throwIfAborted();
      const now = this.clock.now();
      this.window = this.window.filter((t) => t.at + RATE_WINDOW_MS > now);
      const used = this.window.reduce((sum, t) => sum + t.tokens, 0);
      const requestsFit = this.rpm === undefined || this.window.length < this.rpm;
      // A single request bigger than the whole budget still goes, alone, or it would wait forever.
      const tokensFit = this.tpm === undefined || this.window.length === 0 || used + tokens <= this.tpm;
      if (requestsFit && tokensFit) {
        const ticket = { at: now, tokens };
        this.window.push(ticket);
        return ticket;
      }
      const nextExpiry = Math.min(...this.window.map((t) => t.at + RATE_WINDOW_MS));
      await sleep(this.clock, Math.max(1, nextExpiry - now), signal);
    }
  }

  /** The request really left now (after waiting for a slot): count the minute from here. */
  restamp(ticket: RateTicket): void {
    ticket.at = this.clock.now();
  }
}
