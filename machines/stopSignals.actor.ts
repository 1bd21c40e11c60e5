// The stop-signal actor: turns the caller's AbortSignal (stop now), the drain signal (start
// nothing new, finish what is in flight) and the run's timeout on the injected clock into
// 'stop' events for the optimizer, its parent.
import { fromCallback, type EventObject } from 'xstate';
import type { Clock } from '../src/clock.js';
import type { StopReason } from '../src/gepa/core/stopReason.js';

export interface StopSignalsInput {
  signal?: AbortSignal;
  drainSignal?: AbortSignal;
  clock: Clock;
  timeoutMs?: number;
}

/** What it sends: the reason the stop decision (src/gepa/search/stopDecision.ts) takes, and whether the work in flight may finish. */
export interface StopRequest {
  type: 'stop';
  reason: StopReason;
  graceful?: boolean;
}

export const stopSignals = fromCallback<EventObject, StopSignalsInput>(({ input, sendBack }) => {
  const onAbort = () => sendBack({ type: 'stop', reason: 'aborted' } satisfies StopRequest);
  const onDrain = () => sendBack({ type: 'stop', reason: 'stopped', graceful: true } satisfies StopRequest);
  const listen = (signal: AbortSignal | undefined, handler: () => void) => {
    if (signal?.aborted) handler();
    else signal?.addEventListener('abort', handler, { once: true });
  };
  listen(input.signal, onAbort);
  listen(input.drainSignal, onDrain);
  const timer = input.timeoutMs !== undefined ? input.clock.setTimeout(() => sendBack({ type: 'stop', reason: 'timeout' } satisfies StopRequest), input.timeoutMs) : undefined;
  return () => {
    input.signal?.removeEventListener('abort', onAbort);
    input.drainSignal?.removeEventListener('abort', onDrain);
    if (timer !== undefined) input.clock.clearTimeout(timer);
  };
});
