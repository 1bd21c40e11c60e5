// Runs a child script that prints "ready", then a run's OptimizeResult as JSON, and kills it with
// SIGKILL as told: soon after it starts (it may die replaying its log), or once its counter file
// holds `calls` lines (one per call it really made), then `ms` later. For the kill -9 tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

/** When to kill a child: soon after it starts, or once it has made `calls` real calls, then `ms` later. */
export type Kill = { afterReadyMs: number } | { calls: number; ms: number };

/** Lines in a file (0 when it does not exist). */
export const lines = (path: string): number => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter((l) => l !== '').length : 0);

/** Runs `script` (through tsx) with `args`; `counterFile` is where it counts its calls. */
export function runKillableChild<Result>(script: string, args: readonly string[], counterFile: string, kill?: Kill): Promise<{ killed: boolean; result?: Result }> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let timer: ReturnType<typeof setTimeout> | undefined;
    let poll: ReturnType<typeof setInterval> | undefined;
    const killIn = (ms: number) => (timer = setTimeout(() => child.kill('SIGKILL'), ms));
    child.stdout?.on('data', (chunk: Buffer) => {
      const wasReady = out.startsWith('ready\n');
      out += chunk.toString();
      if (wasReady || !out.startsWith('ready\n') || kill === undefined) return;
      if ('afterReadyMs' in kill) killIn(kill.afterReadyMs);
      else {
        poll = setInterval(() => {
          if (lines(counterFile) < kill.calls) return;
          clearInterval(poll);
          killIn(kill.ms);
        }, 2);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      clearInterval(poll);
      if (signal === 'SIGKILL') return resolve({ killed: true });
      if (code !== 0) return reject(new Error(`child exited with ${code}: ${err}`));
      resolve({ killed: false, result: JSON.parse(out.trim().split('\n').at(-1) ?? '') as Result });
    });
  });
}
