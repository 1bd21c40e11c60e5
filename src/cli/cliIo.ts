// What the CLI touches of its process: output streams, environment and working directory.
// Passed in, so tests run commands in-process with their own streams and env. (Stop signals
// are the process's own: see installSignalHandlers in src/stopRequests.ts.)

export interface CliIo {
  /** Results: the summary, or the JSON line. */
  stdout: { write(text: string): unknown };
  /** Progress and diagnostics; a TTY here (outside CI) gets the live display. */
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** The calendar date, for naming fresh run directories; default the system's. */
  today?: () => Date;
}

export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
}

/** A live display only on a terminal and never in CI, where redraws turn into noise. */
export function wantsLiveDisplay(io: CliIo): boolean {
  const ci = io.env.CI;
  return io.stderr.isTTY === true && (ci === undefined || ci === '' || ci === 'false' || ci === '0');
}
