// The CLI's exit codes (as docs/cli.md lists them) and the error that means "the user asked for something
// invalid": a bad flag, a bad config, a run directory in use. Everything else is a runtime failure.

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
/** 128 + SIGINT, as a shell reports a process Ctrl-C ended. */
export const EXIT_INTERRUPTED = 130;

/** Invalid arguments or config: reported as is, exit 2, and nothing has been written yet. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The user stopped the run (Ctrl-C) before it had a result to print: exit 130, with what to do next. */
export class InterruptedError extends Error {
  override readonly name = 'InterruptedError';
}
