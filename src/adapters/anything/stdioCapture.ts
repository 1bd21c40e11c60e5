// captureStdio (gepa's capture_stdio): what an evaluator prints during one call (console.log,
// info, debug, warn, error; process.stdout.write, process.stderr.write) becomes that call's side
// information, under `stdout` and `stderr`. Each call runs in its own async context
// (AsyncLocalStorage), so text printed after an await, or by calls in flight at the same time,
// lands in the call that printed it; printed outside an evaluator call, it goes to the streams as
// usual. The streams and console are patched only while a run that asked for it goes on
// (installStdioCapture, counted, so runs at once share one patch) and restored when the last ends.
import { AsyncLocalStorage } from 'node:async_hooks';
import { format } from 'node:util';
import type { SideInfo } from './sideInfo.js';

/** The text one evaluator call printed. */
export interface PrintedText {
  stdout: string;
  stderr: string;
}

const currentCall = new AsyncLocalStorage<PrintedText>();
let installs = 0;
let restore: (() => void) | undefined;

type Stream = 'stdout' | 'stderr';
const CONSOLE: ReadonlyArray<[keyof Console & ('log' | 'info' | 'debug' | 'warn' | 'error'), Stream]> = [
  ['log', 'stdout'],
  ['info', 'stdout'],
  ['debug', 'stdout'],
  ['warn', 'stderr'],
  ['error', 'stderr'],
];

function patch(): () => void {
  const undo: Array<() => void> = [];
  for (const stream of ['stdout', 'stderr'] as const) {
    const target = process[stream];
    const original = target.write;
    target.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]): boolean {
      const printed = currentCall.getStore();
      if (!printed) return (original as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
      printed[stream] += typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString();
      // Written (to the call's side information): a callback given is called, as the stream would.
      const callback = rest.find((r) => typeof r === 'function') as ((error?: Error | null) => void) | undefined;
      if (callback) queueMicrotask(() => callback(null));
      return true;
    } as typeof target.write;
    undo.push(() => {
      target.write = original;
    });
  }
  for (const [method, stream] of CONSOLE) {
    const original = console[method];
    console[method] = (...args: unknown[]) => {
      const printed = currentCall.getStore();
      if (!printed) return original.apply(console, args);
      printed[stream] += `${format(...args)}\n`;
    };
    undo.push(() => {
      console[method] = original;
    });
  }
  return () => {
    for (const u of undo.reverse()) u();
  };
}

/** Patches console and the streams for a run that captures (once for runs at once); the returned function undoes it when the last such run ends. */
export function installStdioCapture(): () => void {
  if (installs++ === 0) restore = patch();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--installs === 0) {
      restore?.();
      restore = undefined;
    }
  };
}

/** The printed text under `stdout` and `stderr` (`_gepa_stdout`, `_gepa_stderr` when the side information has those keys), each only when something was printed. */
export function withPrinted(sideInfo: SideInfo, printed: PrintedText | undefined): SideInfo {
  if (!printed || (printed.stdout === '' && printed.stderr === '')) return sideInfo;
  const out: SideInfo = { ...sideInfo };
  for (const stream of ['stdout', 'stderr'] as const) {
    if (printed[stream] !== '') out[stream in sideInfo ? `_gepa_${stream}` : stream] = printed[stream];
  }
  return out;
}

/** Runs one evaluator call in a fresh capture context; what it printed comes back with it, also when it throws. */
export async function withCapturedStdio<T>(call: () => Promise<T>): Promise<{ printed: PrintedText; value: T }> {
  const printed: PrintedText = { stdout: '', stderr: '' };
  const value = await currentCall.run(printed, call);
  return { printed, value };
}
