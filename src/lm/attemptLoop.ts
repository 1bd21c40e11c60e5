// The one retry loop of the models that talk to a server (the OpenAI client, the AI SDK): per
// attempt, wait for the client-side rate limit without a worker slot, take a slot only while
// the request is in flight, and on a retryable failure back off on the injected clock (so
// simulated runs stay deterministic), telling the runtime before each wait.
import { sleep } from '../clock.js';
import type { Clock } from '../clock.js';
import type { MinuteRateLimiter, RateTicket } from './minuteRateLimiter.js';
import { retryDelayMs, type Failure, type FailureKind } from './retryPolicy.js';
import type { SlotAwareContext } from './slotAwareModel.js';

export type Attempt<T> = { ok: true; value: T } | { ok: false; failure: Failure };

export interface AttemptLoopOptions<T> {
  /** As retry notices name it. */
  model: string;
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  clock: Clock;
  limiter?: MinuteRateLimiter | undefined;
  /** What the rate limiter is charged before the attempt (settled with the real count after). */
  rateTokens: number;
  /** Seeds the deterministic jitter of the backoff (the request's cache key). */
  jitterKey: string;
  /** Applied to every failure message that leaves the loop. */
  redact: (text: string) => string;
  /** The error thrown when the call fails for good. */
  giveUp: (message: string, kind: FailureKind, attempts: number, status: number | undefined) => Error;
  /** One request; never throws for a failure of the request, it returns it. */
  attempt: (signal: AbortSignal) => Promise<Attempt<T>>;
}

/** Retries `attempt` until it succeeds or fails for good; the ticket is the rate limiter's entry to settle. */
export async function runAttempts<T>(options: AttemptLoopOptions<T>, ctx: SlotAwareContext): Promise<{ value: T; attempts: number; ticket: RateTicket | undefined }> {
  const { limiter, maxRetries } = options;
  const runInSlot = ctx.runInSlot ?? (<R>(fn: () => Promise<R>) => fn());
  for (let attempt = 1; ; attempt++) {
    ctx.signal.throwIfAborted();
    // Rate-limit waits happen before taking a slot: a waiting call must not hold capacity.
    const ticket = await limiter?.acquire(options.rateTokens, ctx.signal);
    const outcome = await runInSlot(() => {
      if (ticket) limiter?.restamp(ticket);
      return options.attempt(ctx.signal);
    });
    if (outcome.ok) return { value: outcome.value, attempts: attempt, ticket };
    if (ticket) ticket.tokens = 0;
    if (ctx.signal.aborted) throw ctx.signal.reason;
    const { failure } = outcome;
    if (!failure.retryable) throw options.giveUp(failure.message, failure.kind, attempt, failure.status);
    if (attempt > maxRetries) {
      throw options.giveUp(`gave up after ${attempt} attempt${attempt === 1 ? '' : 's'}: ${failure.message}`, failure.kind, attempt, failure.status);
    }
    const delayMs = retryDelayMs(failure, attempt, options.jitterKey, options.baseDelayMs, options.maxDelayMs);
    const capped = failure.retryAfterMs !== undefined && failure.retryAfterMs > delayMs;
    ctx.onRetry?.({ model: options.model, attempt, maxAttempts: maxRetries + 1, delayMs, reason: options.redact(failure.message), ...(capped ? { requestedDelayMs: failure.retryAfterMs } : {}) });
    // Backoff holds no slot: we are outside runInSlot here.
    await sleep(options.clock, delayMs, ctx.signal);
  }
}
