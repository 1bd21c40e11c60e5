// Starts `gepa-actors <args>` as a process of its own (a resumed run, a branch): this package's
// command (dist/src/cli.js when built; src/cli.ts through tsx in a clone), detached, its output
// appended to a file in the run directory, so that it outlives the workbench that started it.
// It inherits this process's environment: a run on an endpoint needs its key, which is never written.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** A started command as the controls watch it (a ChildProcess is one): its pid, its exit. */
export interface LaunchedCommand {
  pid?: number | undefined;
  once(event: 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): unknown;
  once(event: 'error', listener: (error: Error) => void): unknown;
  off(event: 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): unknown;
}

/** Starts the command with `args` in `cwd`, its stdout and stderr appended to `logPath`. */
export type CommandLauncher = (args: readonly string[], options: { cwd: string; logPath: string }) => LaunchedCommand;

/** node's arguments that run this package's command: the built entry, or the source through tsx. */
export function commandEntry(): string[] {
  const here = fileURLToPath(import.meta.url);
  const built = join(dirname(here), '..', 'cli.js');
  if (here.endsWith('.js') && existsSync(built)) return [built];
  const tsx = join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist', 'loader.mjs');
  return ['--import', pathToFileURL(tsx).href, join(dirname(here), '..', 'cli.ts')];
}

export const launchCommand: CommandLauncher = (args, { cwd, logPath }): ChildProcess => {
  const out = openSync(logPath, 'a');
  try {
    const child = spawn(process.execPath, [...commandEntry(), ...args], { cwd, detached: true, stdio: ['ignore', out, out], env: process.env });
    child.unref();
    return child;
  } finally {
    closeSync(out);
  }
};
