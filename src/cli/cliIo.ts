// What the CLI touches of its process: output streams, environment and working directory.
// Passed in, so tests run commands in-process with their own streams and env. (Stop signals
// are the process's own: see installSignalHandlers in src/stopRequests.ts.)
import type { CommandLauncher } from '../workbench/commandLauncher.js';

export interface CliIo {
  /** Results: the summary, or the JSON line. */
  stdout: { write(text: string): unknown };
  /** Progress and diagnostics; a TTY here (outside CI) gets the live display. */
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** The calendar date, for naming fresh run directories; default the system's. */
  today?: () => Date;
  /** Resolves when the user ends a command that serves until told (watch, --ui): default the first SIGINT or SIGTERM. */
  untilInterrupted?: () => Promise<void>;
  /** Starts `gepa-actors` for a resumed run or a branch; default a detached process of this package's command. */
  launch?: CommandLauncher;
}

export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
}

/** A live display only on a terminal and never in CI, where redraws turn into noise. */
export function wantsLiveDisplay(io: CliIo): boolean {
  const ci = io.env.CI;
  return io.stderr.isTTY === true && (ci === undefined || ci === '' || ci === 'false' || ci === '0');
}
