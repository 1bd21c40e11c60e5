// How an operator stops a run from outside: a STOP file in its run directory, or SIGINT/SIGTERM.
// The first request drains (nothing new starts, work in flight finishes, the result and the log
// are complete); a second signal aborts what is in flight; a third gets Node's default (exit).
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const STOP_FILE = 'STOP';

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

export interface SignalHandlerOptions {
  /** Default SIGINT and SIGTERM. */
  signals?: NodeJS.Signals[];
  /** Told what each signal did, e.g. to print "stopping after the work in flight (Ctrl-C again to abort)". */
  onSignal?: (signal: NodeJS.Signals, action: 'drain' | 'abort') => void;
}

/**
 * First signal: `drain.abort()` (pass drain.signal as the run's drainSignal). Second: `abort.abort()`
 * (pass abort.signal as the run's signal), and the handlers are removed, so a third signal ends
 * the process as usual. Returns a function that removes the handlers.
 */
export function installSignalHandlers(drain: AbortController, abort: AbortController, options: SignalHandlerOptions = {}): () => void {
  const signals = options.signals ?? ['SIGINT', 'SIGTERM'];
  let received = 0;
  const uninstall = () => {
    for (const s of signals) process.off(s, onSignal);
  };
  function onSignal(signal: NodeJS.Signals) {
    received++;
    if (received === 1) {
      drain.abort(new Error(`${signal}: stopping after the work in flight`));
      options.onSignal?.(signal, 'drain');
    } else {
      uninstall();
      abort.abort(new Error(`${signal}: aborting the work in flight`));
      options.onSignal?.(signal, 'abort');
    }
  }
  for (const s of signals) process.on(s, onSignal);
  return uninstall;
}
