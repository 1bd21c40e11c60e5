// The retry policy of the models that talk to a server (OpenAI-compatible, AI SDK): which
// failed attempts are worth retrying (classifyFailure here; aiSdkFailure.ts for the AI SDK's
// errors), how long to wait before the next one (exponential backoff with deterministic jitter,
// unless the server said retry-after / retry-after-ms), and the default retry settings. The
// retry loop itself is attemptLoop.ts.
import OpenAI from 'openai';
import { requestKey } from './responseCache.js';
import { errorMessage } from '../errors/errorMessage.js';

export const DEFAULT_MAX_RETRIES = 6;
export const DEFAULT_RETRY_BASE_DELAY_MS = 1_000;
export const DEFAULT_RETRY_MAX_DELAY_MS = 60_000;

/**
 * Exponential backoff with "equal jitter" (half fixed, half jittered), the jitter drawn from a
 * hash of the request and the attempt: reproducible, yet different requests that failed
 * together spread out.
 */
export function backoffDelayMs(attempt: number, jitterKey: string, baseMs: number, maxMs: number): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
  const fraction = parseInt(requestKey([jitterKey, attempt]).slice(0, 8), 16) / 2 ** 32;
  return exponential * (0.5 + 0.5 * fraction);
}

/** retry-after-ms, else retry-after in seconds or as an HTTP date (against the server's Date). */
export function retryAfterMs(headers: Headers | undefined): number | undefined {
  const millis = headers?.get('retry-after-ms');
  if (millis && Number.isFinite(Number(millis))) return Math.max(0, Number(millis));
  const after = headers?.get('retry-after');
  if (!after) return undefined;
  if (Number.isFinite(Number(after))) return Math.max(0, Number(after) * 1000);
  // Measured against the server's clock, so no local wall-clock read is needed.
  const at = Date.parse(after);
  const serverNow = Date.parse(headers?.get('date') ?? '');
  return Number.isFinite(at) && Number.isFinite(serverNow) ? Math.max(0, at - serverNow) : undefined;
}

/** What a failed attempt can be; the model adds the kinds that only a parsed reply can have. */
export type FailureKind = 'http' | 'timeout' | 'connection' | 'malformed' | 'other';

export interface Failure {
  kind: FailureKind;
  retryable: boolean;
  message: string;
  status?: number;
  retryAfterMs?: number;
}

export function causeOf(err: unknown): string {
  let cause: unknown = err;
  // undici hides the useful part ("connect ECONNREFUSED ...") a level or two down.
  while (cause instanceof Error && cause.cause instanceof Error) cause = cause.cause;
  return errorMessage(cause);
}

export function apiErrorMessage(err: InstanceType<typeof OpenAI.APIError>): string {
  const body = err.error as { message?: unknown } | undefined;
  return typeof body?.message === 'string' ? body.message : err.message;
}

// 408 and 409 are the SDK's own "try again" statuses (request timeout, lock timeout).
export const RETRYABLE_STATUS = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;

export function classifyFailure(err: unknown, timedOut: boolean, timeoutMs: number): Failure {
  if (timedOut || err instanceof OpenAI.APIConnectionTimeoutError) {
    return { kind: 'timeout', retryable: true, message: `request timed out after ${timeoutMs} ms` };
  }
  if (err instanceof OpenAI.APIConnectionError) {
    return { kind: 'connection', retryable: true, message: `connection failed: ${causeOf(err)}` };
  }
  if (err instanceof OpenAI.APIError && typeof err.status === 'number') {
    return {
      kind: 'http',
      retryable: RETRYABLE_STATUS(err.status),
      status: err.status,
      message: `HTTP ${err.status}: ${apiErrorMessage(err)}`,
      retryAfterMs: retryAfterMs(err.headers),
    };
  }
  // Inside an attempt only the SDK runs, so a bare TypeError is undici losing the connection
  // mid-body ("terminated"), which is as transient as failing to connect.
  if (err instanceof TypeError) {
    return { kind: 'connection', retryable: true, message: `connection failed: ${causeOf(err)}` };
  }
  if (err instanceof SyntaxError) {
    return { kind: 'malformed', retryable: false, message: `malformed JSON in the reply body (${err.message})` };
  }
  return { kind: 'other', retryable: false, message: errorMessage(err) };
}

/**
 * The wait before retrying a retryable failure: the server's retry-after wins over our backoff,
 * but never beyond maxMs (a `Retry-After: 3600` must not park a run for an hour per attempt).
 */
export function retryDelayMs(failure: Failure, attempt: number, jitterKey: string, baseMs: number, maxMs: number): number {
  return failure.retryAfterMs !== undefined ? Math.min(failure.retryAfterMs, maxMs) : backoffDelayMs(attempt, jitterKey, baseMs, maxMs);
}
