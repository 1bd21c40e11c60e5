// Time as an injected dependency. The runtime reads `now()` and schedules with `setTimeout` on a
// Clock; production uses the system clock, tests and simulated benchmarks XState's
// SimulatedClock wrapped by steppingClock (which tracks pending timers through public calls) and
// driven by runOnSimulatedClock, so hours of simulated work finish in milliseconds, reproducibly.
import { performance } from 'node:perf_hooks';

/** A clock the runtime reads and schedules on; XState's SimulatedClock fits it. */
export interface Clock {
  /** The current time in ms (any origin; only differences are read). */
  now(): number;
  /** Calls `fn` once after `ms`; returns an id for clearTimeout. */
  setTimeout(fn: () => void, ms: number): unknown;
  /** Cancels a pending setTimeout. */
  clearTimeout(id: unknown): void;
}

/** The real clock: performance.now() and the host's timers. The default of every `clock` option. */
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

/** A clock that can be set forward, as XState's SimulatedClock can (its public part). */
export interface SettableClock extends Clock {
  /** Moves the clock to `time`, firing the timers due by then. */
  set(time: number): void;
}

/** A settable clock that also says when its next timer is due, so a driver can jump to it. */
export interface SteppingClock extends SettableClock {
  /** The earliest instant a pending timer is due at; Infinity when none is pending. */
  nextDue(): number;
}

/**
 * Wraps a settable clock (XState's SimulatedClock: `steppingClock(new SimulatedClock())`) so that
 * it knows its pending timers through its public calls only; the inner clock still decides the
 * order timers fire in, so a run is the same run on the wrapped clock as on the bare one.
 */
export function steppingClock(inner: SettableClock): SteppingClock {
  const due = new Map<unknown, number>();
  return {
    now: () => inner.now(),
    set: (time) => inner.set(time),
    setTimeout(fn, ms) {
      const id = inner.setTimeout(() => {
        due.delete(id);
        fn();
      }, ms);
      due.set(id, inner.now() + ms);
      return id;
    },
    clearTimeout(id) {
      due.delete(id);
      inner.clearTimeout(id);
    },
    nextDue() {
      let next = Infinity;
      for (const at of due.values()) next = Math.min(next, at);
      return next;
    },
  };
}

const drainMicrotasks = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Runs `work` to completion on a stepping clock: whenever nothing is left to do at the current
 * simulated instant, jumps the clock to the next timer. Throws if the work waits on nothing.
 */
export async function runOnSimulatedClock<T>(clock: SteppingClock, work: Promise<T>): Promise<T> {
  // A bare SimulatedClock (how this was called before steppingClock existed) cannot say when
  // its next timer is due through public calls: say how to wrap it rather than fail obscurely.
  if (typeof (clock as Partial<SteppingClock>).nextDue !== 'function') {
    throw new TypeError(
      'runOnSimulatedClock needs a stepping clock: wrap the SimulatedClock once, const clock = steppingClock(new SimulatedClock()), and pass that same clock to optimize({ clock }) and to runOnSimulatedClock',
    );
  }
  let settled = false;
  const tracked = work.finally(() => {
    settled = true;
  });
  tracked.catch(() => {});
  for (;;) {
    await drainMicrotasks();
    if (settled) return tracked;
    const next = clock.nextDue();
    if (next === Infinity) {
      await drainMicrotasks();
      if (settled) return tracked;
      throw new Error('runOnSimulatedClock: the work is waiting, but no timer is pending (deadlock)');
    }
    const at = Math.max(next, clock.now());
    clock.set(at);
    // XState's SimulatedClock fires a timer once now - start >= timeout, and with latencies that
    // are not short binary fractions (start + timeout) - start can round one ulp below timeout:
    // the timer due now would never fire. Step one ulp on when a timer due at `at` is still pending.
    if (clock.nextDue() <= at) clock.set(at + Math.max(Number.MIN_VALUE, Math.abs(at) * Number.EPSILON));
  }
}
