// The command's flags for the workbench: `--ui` and its listening address on `run` and `demo`, and
// the `watch` and `control` commands' definitions. Their actions (workbenchCommands.ts) and the
// workbench itself are loaded only when asked for: a run without --ui loads none of it.
import { Command, InvalidArgumentError, Option } from 'commander';
import type { CliIo } from './cliIo.js';
import { UsageError } from './exitCodes.js';
import { parsePositiveInt } from './scheduleOption.js';
import { listenSettings, type ControlFlags, type UiSettings, type WatchFlags } from './workbenchListen.js';

const parsePort = (text: string): number => {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || n > 65_535) throw new InvalidArgumentError('expected a port number (0 to 65535; 0: any free one)');
  return n;
};

/** Adds `--ui`, `--ui-port`, `--ui-host` and `--allow-remote` to `run` or `demo`. */
export function addUiOptions(command: Command): Command {
  return command
    .option('--ui', 'serve the workbench beside the run (its URL is printed; Ctrl-C ends the command once the run is over)')
    .option('--ui-port <PORT>', 'the workbench\'s port (default: a free one)', parsePort)
    .option('--ui-host <HOST>', 'the workbench\'s address (default 127.0.0.1; another needs --allow-remote)')
    .option('--allow-remote', 'let --ui-host (or watch --host) be an address other than loopback');
}

/** The --ui flags as settings (undefined without --ui); a non-loopback host without --allow-remote is refused, with it warned about. */
export function uiSettings(flags: { ui?: boolean; uiPort?: number; uiHost?: string; allowRemote?: boolean }, io: CliIo): UiSettings | undefined {
  if (flags.ui !== true) {
    if (flags.uiPort !== undefined || flags.uiHost !== undefined) throw new UsageError('--ui-port and --ui-host go with --ui');
    return undefined;
  }
  return listenSettings(flags.uiHost, flags.uiPort, flags.allowRemote === true, io, '--ui-host');
}

const ACTIONS = ['drain', 'stop', 'resume', 'branch'] as const;

/** Adds `watch` and `control` to the program. */
export function addWorkbenchCommands(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('watch')
    .description('serve the workbench of a run directory in the browser: live while another process runs it, and for finished runs (prints its URL)')
    .argument('<runDir>', 'the run directory')
    .option('--port <PORT>', 'the port (default: a free one)', parsePort)
    .option('--host <HOST>', 'the address (default 127.0.0.1; another needs --allow-remote)')
    .option('--allow-remote', 'let --host be an address other than loopback')
    .action(async (runDir: string, flags: WatchFlags) => setExitCode(await (await import('./workbenchCommands.js')).watchCommand(runDir, flags, io)));

  program
    .command('control')
    .description('drain, stop, resume or branch the run in a run directory, as the workbench\'s buttons do')
    .argument('<runDir>', 'the run directory')
    .addArgument(new Command().createArgument('<action>', ACTIONS.join(', ')).choices(ACTIONS))
    .option('--budget <B>', 'resume, branch: the budget in metric calls', parsePositiveInt)
    .option('--candidate <I>', 'branch: the candidate to start from', (text: string) => {
      if (!/^\d+$/.test(text.trim())) throw new InvalidArgumentError('expected a candidate number (0 is the seed)');
      return Number(text);
    })
    .addOption(new Option('--schedule <schedule>', 'branch: batched, batched:PxN or async:K[xN]'))
    .option('--reflection-model <MODEL>', 'branch: another reflection model (run only)')
    .option('--json', 'print the outcome as JSON')
    .action(async (runDir: string, action: string, flags: ControlFlags) => setExitCode(await (await import('./workbenchCommands.js')).controlCommand(runDir, action, flags, io)));
}
