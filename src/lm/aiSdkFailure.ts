// What a failed AI SDK call was, in the retry policy's terms (kind, retryable, status,
// retry-after), so that AI SDK models retry, fail loudly and count failures exactly as the
// OpenAI-compatible ones do. The SDK's errors are recognized by shape (APICallError's
// statusCode, responseHeaders, isRetryable; its error names), never by importing the SDK here.
import { errorMessage } from '../errors/errorMessage.js';
import { causeOf, RETRYABLE_STATUS, retryAfterMs, type Failure } from './retryPolicy.js';

interface ApiCallErrorShape {
  name: string;
  message: string;
  statusCode?: number;
  responseHeaders?: Record<string, string>;
  isRetryable?: boolean;
}

/** APICallError (name AI_APICallError) from any version of the SDK. */
function apiCallError(err: unknown): ApiCallErrorShape | undefined {
  const e = err as Partial<ApiCallErrorShape> | null;
  return err instanceof Error && e?.name === 'AI_APICallError' ? (err as ApiCallErrorShape) : undefined;
}

// The SDK's own names for a reply that arrived but could not be read as one.
const MALFORMED_NAMES = new Set(['AI_JSONParseError', 'AI_TypeValidationError', 'AI_InvalidResponseDataError', 'SyntaxError']);

export function classifyAiSdkFailure(err: unknown, timedOut: boolean, timeoutMs: number): Failure {
  if (timedOut) return { kind: 'timeout', retryable: true, message: `request timed out after ${timeoutMs} ms` };
  // With its own retries off, the SDK throws the attempt's error as it is; a RetryError wraps it otherwise.
  const last = (err as { name?: unknown; lastError?: unknown } | null)?.name === 'AI_RetryError' ? (err as { lastError: unknown }).lastError : err;
  const api = apiCallError(last);
  if (api) {
    const status = api.statusCode;
    // No status: the request never got an answer ("Cannot connect to API: ...").
    if (status === undefined) return { kind: 'connection', retryable: true, message: `connection failed: ${causeOf(last)}` };
    if (status >= 200 && status < 300) {
      // A 2xx the SDK could not read: cut mid-body (it marks that retryable) or not a reply at all.
      return api.isRetryable
        ? { kind: 'connection', retryable: true, message: `connection failed: ${causeOf(last)}` }
        : { kind: 'malformed', retryable: false, message: `malformed reply body (${api.message})` };
    }
    const headers = api.responseHeaders ? new Headers(api.responseHeaders) : undefined;
    return { kind: 'http', retryable: RETRYABLE_STATUS(status), status, message: `HTTP ${status}: ${api.message}`, retryAfterMs: retryAfterMs(headers) };
  }
  const name = (last as { name?: unknown } | null)?.name;
  // An AbortSignal.timeout() of the caller's own (the deadline of ours is `timedOut`).
  if (name === 'TimeoutError') return { kind: 'timeout', retryable: true, message: `request timed out (${errorMessage(last)})` };
  if (typeof name === 'string' && MALFORMED_NAMES.has(name)) return { kind: 'malformed', retryable: false, message: `malformed reply (${errorMessage(last)})` };
  // undici's words for a connection lost before or during the reply.
  if (last instanceof TypeError && /^(fetch failed|terminated)$/i.test(last.message)) return { kind: 'connection', retryable: true, message: `connection failed: ${causeOf(last)}` };
  return { kind: 'other', retryable: false, message: errorMessage(last) };
}
