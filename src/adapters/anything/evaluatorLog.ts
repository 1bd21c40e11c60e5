// log(): diagnostic lines an evaluator writes during one call, gathered into that call's side
// information. Each evaluator call runs in its own async context (node:async_hooks'
// AsyncLocalStorage), so lines written after an `await`, or by calls running at the same time in
// other worker slots, land in the right call. Outside an evaluator, log() warns once and does nothing.
import { AsyncLocalStorage } from 'node:async_hooks';
import { formatWithOptions } from 'node:util';

const currentCall = new AsyncLocalStorage<string[]>();
let warnedOutside = false;

/**
 * Adds a line to the side information of the evaluator call it is made in (under `log`; see
 * docs/optimize-anything.md for a side information that already has that key). Arguments are
 * formatted as console.log formats them. Called outside an evaluator of optimizeAnything, it
 * warns once per process (a `process.emitWarning`) and does nothing.
 */
export function log(...args: unknown[]): void {
  const lines = currentCall.getStore();
  if (lines) {
    lines.push(formatWithOptions({ depth: 4, breakLength: Infinity }, ...args));
    return;
  }
  if (warnedOutside) return;
  warnedOutside = true;
  process.emitWarning('log() was called outside an evaluator of optimizeAnything: the line is dropped. Call it inside the evaluator (also after an await).', 'GepaLogWarning');
}

/** Runs one evaluator call in a fresh log context; the lines come back with its outcome, also when it throws. */
export async function withEvaluatorLog<T>(call: () => T | Promise<T>): Promise<{ lines: string[]; outcome: { ok: true; value: T } | { ok: false; error: unknown } }> {
  const lines: string[] = [];
  try {
    const value = await currentCall.run(lines, call);
    return { lines, outcome: { ok: true, value } };
  } catch (error) {
    return { lines, outcome: { ok: false, error } };
  }
}
