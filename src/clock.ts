// Time as an injected dependency. The runtime reads `now()` and schedules with `setTimeout` on a
// Clock; production uses the system clock, tests and simulated benchmarks XState's
// SimulatedClock, driven by runOnSimulatedClock so hours of simulated work finish in
// milliseconds, exactly reproducibly.
import { performance } from 'node:perf_hooks';
import type { Clock } from './types.js';

export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
};

/** Resolves after `ms` on `clock`; rejects with the signal's reason when aborted first. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clock.clearTimeout(id);
      reject(signal?.reason);
    };
    const id = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

interface PendingTimeout {
  start: number;
  timeout: number;
}

/** The part of XState's SimulatedClock the driver needs (its timer map is private in the types). */
export interface SimulatedClockLike extends Clock {
  set(time: number): void;
}

const drainMicrotasks = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Runs `work` to completion on a SimulatedClock: whenever nothing is left to do at the current
 * simulated instant, jumps the clock to the next timer. Throws if the work waits on nothing.
 */
export async function runOnSimulatedClock<T>(clock: SimulatedClockLike, work: Promise<T>): Promise<T> {
  let settled = false;
  const tracked = work.finally(() => {
    settled = true;
  });
  tracked.catch(() => {});
  // SimulatedClock keeps its timers in a private map; reading it is how we find the next instant.
  const timeouts = (clock as unknown as { timeouts: Map<number, PendingTimeout> }).timeouts;
  for (;;) {
    await drainMicrotasks();
    if (settled) return tracked;
    let next = Infinity;
    for (const t of timeouts.values()) next = Math.min(next, t.start + t.timeout);
    if (next === Infinity) {
      await drainMicrotasks();
      if (settled) return tracked;
      throw new Error('runOnSimulatedClock: the work is waiting, but no timer is pending (deadlock)');
    }
    clock.set(Math.max(next, clock.now()));
  }
}
