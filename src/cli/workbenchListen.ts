// Where the workbench listens and how long a serving command serves: the listening settings
// (a host other than loopback needs --allow-remote and is warned about), the flags of `watch` and
// `control`, and the wait for Ctrl-C. Shared by the flags' definitions and the commands' actions.
import { isLoopback } from '../workbench/requestGuard.js';
import type { CliIo } from './cliIo.js';
import { UsageError } from './exitCodes.js';

/** Where the workbench listens: --ui-port / --ui-host (watch: --port / --host), --allow-remote. */
export interface UiSettings {
  port: number;
  host: string;
  allowRemote: boolean;
}

export function listenSettings(host: string | undefined, port: number | undefined, allowRemote: boolean, io: CliIo, flag: string): UiSettings {
  const chosen = host ?? '127.0.0.1';
  if (!isLoopback(chosen)) {
    if (!allowRemote) throw new UsageError(`${flag} ${chosen} is not loopback: anyone who can reach it and has the URL could watch and steer the run; add --allow-remote to mean it`);
    io.stderr.write(`warning: the workbench listens on ${chosen}, not loopback: whoever can reach it and has the URL (its token) can watch and steer this run\n`);
  }
  return { port: port ?? 0, host: chosen, allowRemote };
}

/** Resolves on the first SIGINT or SIGTERM (or io.untilInterrupted). */
export function untilInterrupted(io: CliIo): Promise<void> {
  if (io.untilInterrupted) return io.untilInterrupted();
  return new Promise((done) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export interface WatchFlags {
  port?: number;
  host?: string;
  allowRemote?: boolean;
}


export interface ControlFlags {
  budget?: number;
  candidate?: number;
  schedule?: string;
  reflectionModel?: string;
  json?: boolean;
}
