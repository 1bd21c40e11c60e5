// The stop-signal actor: turns the caller's AbortSignal (stop now), the drain signal (start
// nothing new, finish what is in flight), the fail signal (a failing callback under failFast: stop
// now with 'error') and the run's timeout on the injected clock into 'stop' events for the
// optimizer, its parent.
import { fromCallback, type EventObject } from 'xstate';
import type { Clock } from '../src/clock.js';
import type { StopReason } from '../src/gepa/core/stopReason.js';

export interface StopSignalsInput {
  signal?: AbortSignal;
  drainSignal?: AbortSignal;
  /** Aborted with a message: the run failed (stop now, 'error'). */
  failSignal?: AbortSignal;
  clock: Clock;
  timeoutMs?: number;
}

/** What it sends: the reason the stop decision (src/gepa/search/stopDecision.ts) takes, and whether the work in flight may finish. */
export interface StopRequest {
  type: 'stop';
  reason: StopReason;
  graceful?: boolean;
  /** With 'error': what failed. */
  error?: string;
}

export const stopSignals = fromCallback<EventObject, StopSignalsInput>(({ input, sendBack }) => {
  const onAbort = () => sendBack({ type: 'stop', reason: 'aborted' } satisfies StopRequest);
  const onDrain = () => sendBack({ type: 'stop', reason: 'stopped', graceful: true } satisfies StopRequest);
  const listen = (signal: AbortSignal | undefined, handler: () => void) => {
    if (signal?.aborted) handler();
    else signal?.addEventListener('abort', handler, { once: true });
  };
  const onFail = () => sendBack({ type: 'stop', reason: 'error', error: String(input.failSignal?.reason) } satisfies StopRequest);
  listen(input.signal, onAbort);
  listen(input.drainSignal, onDrain);
  listen(input.failSignal, onFail);
  const timer = input.timeoutMs !== undefined ? input.clock.setTimeout(() => sendBack({ type: 'stop', reason: 'timeout' } satisfies StopRequest), input.timeoutMs) : undefined;
  return () => {
    input.signal?.removeEventListener('abort', onAbort);
    input.drainSignal?.removeEventListener('abort', onDrain);
    input.failSignal?.removeEventListener('abort', onFail);
    if (timer !== undefined) input.clock.clearTimeout(timer);
  };
});
