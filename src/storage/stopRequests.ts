// How an operator stops a run from outside: a STOP file in its run directory, or SIGINT/SIGTERM;
// and the stopper that waits for a file of the user's choosing (stoppers.file).
// The first request drains (nothing new starts, work in flight finishes, the result and the log
// are complete), for at most abandonAfterMs; a second signal aborts what is in flight; a third
// gets Node's default (exit). A STOP file that reads `now` stops within STOP_NOW_GRACE_MS: it
// drains, and aborts what is still in flight after the grace (as a first Ctrl-C in the CLI does).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock } from '../clock.js';
import type { Clock } from '../clock.js';
import { namedStopper, type Stopper } from '../gepa/strategies/stoppers.js';

/** The file whose presence in a run directory asks the run to stop gracefully (then it is removed). */
export const STOP_FILE = 'STOP';

/** What the STOP file holds to ask for a stop within STOP_NOW_GRACE_MS instead of a drain. */
export const STOP_NOW = 'now';

/** How long a STOP file reading `now` lets the calls in flight finish before they are aborted (the CLI's first Ctrl-C gives as long). */
export const STOP_NOW_GRACE_MS = 5_000;

/** What `dir`'s STOP file asks: nothing (no file), a drain (any other content), or a stop within the grace (`now`). */
export function readStopRequest(dir: string): 'drain' | 'now' | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, STOP_FILE), 'utf8');
  } catch {
    return undefined;
  }
  return text.trim() === STOP_NOW ? 'now' : 'drain';
}

/**
 * Calls `onDrain` once when `dir/STOP` exists and `onNow` once when it reads `now` (after
 * `onDrain`), looked for at once and then every `intervalMs` on a real, unref()'d timer.
 * Returns a function that stops watching.
 */
export function watchStopRequests(dir: string, handlers: { onDrain: () => void; onNow: () => void }, intervalMs = 1000): () => void {
  let seen: 'drain' | 'now' | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  const stopWatching = () => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
  };
  const check = () => {
    const request = readStopRequest(dir);
    if (request === undefined || request === seen) return;
    if (seen === undefined) handlers.onDrain();
    seen = request;
    if (request === 'now') {
      stopWatching();
      handlers.onNow();
    }
  };
  check();
  if (seen !== 'now') {
    timer = setInterval(check, intervalMs);
    timer.unref();
  }
  return stopWatching;
}

/**
 * gepa's FileStopper: stops the run once a file exists at `path` (reason 'file'), looked for at
 * each fold; unlike the run directory's STOP file it is left in place.
 */
export function fileStopper(path: string): Stopper {
  return namedStopper(`file(${JSON.stringify(path)})`, () => existsSync(path) && 'file');
}

/**
 * Calls `onStop` once when `dir/STOP` exists: checked at once, then every `intervalMs` on a real,
 * unref()'d timer (it must not keep the process alive, and a simulated clock would never poll).
 * Returns a function that stops watching.
 */
export function watchStopFile(dir: string, onStop: () => void, intervalMs = 1000): () => void {
  const path = join(dir, STOP_FILE);
  let timer: ReturnType<typeof setInterval> | undefined;
  const stopWatching = () => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
  };
  const check = () => {
    if (!existsSync(path)) return false;
    stopWatching();
    onStop();
    return true;
  };
  if (!check()) {
    timer = setInterval(check, intervalMs);
    timer.unref();
  }
  return stopWatching;
}

/** Options of installSignalHandlers. */
export interface SignalHandlerOptions {
  /** Default SIGINT and SIGTERM. */
  signals?: NodeJS.Signals[];
  /**
   * Told what each signal did, e.g. to print "stopping after the work in flight (Ctrl-C again to
   * abort)"; 'abandon' when abandonAfterMs passed after the first signal without the run ending.
   */
  onSignal?: (signal: NodeJS.Signals, action: 'drain' | 'abort' | 'abandon') => void;
  /**
   * After the first signal, the work in flight gets this long to finish; then it is aborted as by
   * a second signal. A hung call must not hold a stopping run for minutes. Default: no limit.
   */
  abandonAfterMs?: number;
  /** The clock abandonAfterMs is measured on. Default: the system clock. */
  clock?: Clock;
}

/**
 * First signal: `drain.abort()` (pass drain.signal as the run's drainSignal), and with
 * abandonAfterMs, `abort.abort()` that much later. Second: `abort.abort()` (pass abort.signal
 * as the run's signal), and the handlers are removed, so a third signal ends the process as
 * usual. Returns a function that removes the handlers (and the pending abandonment).
 */
export function installSignalHandlers(drain: AbortController, abort: AbortController, options: SignalHandlerOptions = {}): () => void {
  const signals = options.signals ?? ['SIGINT', 'SIGTERM'];
  const clock = options.clock ?? systemClock;
  let received = 0;
  let abandon: unknown;
  const cancelAbandon = () => {
    if (abandon !== undefined) clock.clearTimeout(abandon);
    abandon = undefined;
  };
  const uninstall = () => {
    cancelAbandon();
    for (const s of signals) process.off(s, onSignal);
  };
  function onSignal(signal: NodeJS.Signals) {
    received++;
    if (received === 1) {
      drain.abort(new Error(`${signal}: stopping after the work in flight`));
      options.onSignal?.(signal, 'drain');
      const { abandonAfterMs } = options;
      if (abandonAfterMs === undefined) return;
      abandon = clock.setTimeout(() => {
        abandon = undefined;
        if (abort.signal.aborted) return;
        abort.abort(new Error(`${signal}: abandoning the work still in flight after ${abandonAfterMs} ms`));
        options.onSignal?.(signal, 'abandon');
      }, abandonAfterMs);
    } else {
      uninstall();
      abort.abort(new Error(`${signal}: aborting the work in flight`));
      options.onSignal?.(signal, 'abort');
    }
  }
  for (const s of signals) process.on(s, onSignal);
  return uninstall;
}
