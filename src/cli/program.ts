// The gepa-actors command line: commander parses flags and routes to the commands; every
// outcome becomes an exit code (0 done, 1 runtime failure, 2 invalid arguments or config; 130
// after Ctrl-C is the process's own, see docs/cli.md).
// runCli never exits the process itself, so tests run it in-process with their own io.
// Room cli/ (the top floor): imported only by src/cli.ts, the command's entry.
import { resolve } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { RunDirectoryError } from '../storage/runDirectoryError.js';
import { ConfigError } from '../errors/configError.js';
import { workerCommand } from '../worker/workerCommand.js';
import { processIo, type CliIo } from './cliIo.js';
import { DEMO_DEFAULTS, demoCommand } from './demoCommand.js';
import { EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, InterruptedError, UsageError } from './exitCodes.js';
import { packageVersion } from './packageVersion.js';
import { runCommand } from './runCommand.js';
import { parseInteger, parseNonNegative, parsePositiveInt, parseScheduleOption, scheduleOptionText } from './scheduleOption.js';
import { errorMessage } from '../errors/errorMessage.js';
import { terminalSafe } from './terminalText.js';
import { startOtlpExport, type OtlpExport } from '../telemetry/otlpExport.js';
import { addUiOptions, addWorkbenchCommands, uiSettings } from './workbenchOptions.js';
import type { UiSettings } from './workbenchListen.js';
import { readSeedTexts } from './seedCandidateFile.js';

interface DemoFlags {
  schedule: ReturnType<typeof parseScheduleOption>;
  workers: number;
  budget: number;
  seed: number;
  json?: boolean;
  inspect?: boolean;
  runDir?: string;
  resume?: boolean;
  report: boolean;
  metricCallMs: number;
  reflectionMs: number;
  seedCandidate?: string;
}

interface RunFlags {
  resume?: boolean;
  json?: boolean;
  inspect?: boolean;
  budget?: number;
  seed?: number;
  runDir?: string;
  schedule?: ReturnType<typeof parseScheduleOption>;
  reflectionModel?: string;
  seedCandidate?: string;
}

function buildProgram(io: CliIo, setExitCode: (code: number) => void): Command {
  const program = new Command('gepa-actors')
    .description('GEPA reflective prompt optimization, run as XState actors under one worker budget')
    // Set before the commands are added, so they inherit them.
    .exitOverride()
    .configureOutput({ writeOut: (s) => void io.stdout.write(s), writeErr: (s) => void io.stderr.write(s) })
    .showHelpAfterError('(add --help for usage)')
    .version(packageVersion(), '-V, --version', 'print the version');

  const demo = program
    .command('demo')
    .description('optimize the built-in offline demo task (simulated models, no network, no key)')
    .addOption(
      new Option('--schedule <schedule>', 'batched, batched:PxN, async:K[xN], or auto (the runtime chooses: async 8 at 16 slots, async 10 with gates evaluated ahead and reflections that read other proposals\' failures at 128 or 512, for 1,500 calls)')
        .argParser(parseScheduleOption)
        .default(DEMO_DEFAULTS.schedule, scheduleOptionText(DEMO_DEFAULTS.schedule)),
    )
    .option('--workers <W>', 'worker slots shared by every metric and LM call', parsePositiveInt, DEMO_DEFAULTS.workers)
    .option('--budget <B>', 'maximum metric calls', parsePositiveInt, DEMO_DEFAULTS.budget)
    .option('--seed <S>', 'seed of the demo task and of the optimizer', parseInteger, DEMO_DEFAULTS.seed)
    .option('--json', 'print the OptimizeResult as JSON on the last line of stdout')
    .option('--run-dir <DIR>', 'write report.html (and inspect.jsonl with --inspect) here (default a fresh runs/demo-<date>-<time>/)')
    .option('--no-report', 'write no report.html (and, without --run-dir, no run directory)')
    .option('--resume', 'continue the run in --run-dir instead of refusing a non-empty directory (needs --run-dir)')
    .option('--inspect', 'record XState inspection events to inspect.jsonl in the run directory, and the worker slots and proposals in flight to activity.jsonl (for gepa-actors watch)')
    .option('--metric-call-ms <MS>', 'simulated mean latency of a metric call', parseNonNegative, DEMO_DEFAULTS.metricCallMs)
    .option('--reflection-ms <MS>', 'simulated mean latency of a reflection call', parseNonNegative, DEMO_DEFAULTS.reflectionMs)
    .option('--seed-candidate <F>', 'start from this JSON object of named texts instead of the demo\'s seed prompt');
  addUiOptions(demo).action(async (flags: DemoFlags & UiFlags) => {
      setExitCode(
        await demoCommand(
          {
            schedule: flags.schedule,
            workers: flags.workers,
            budget: flags.budget,
            seed: flags.seed,
            json: flags.json === true,
            inspect: flags.inspect === true,
            resume: flags.resume === true,
            report: flags.report,
            ...(flags.runDir !== undefined ? { runDir: flags.runDir } : {}),
            metricCallMs: flags.metricCallMs,
            reflectionMs: flags.reflectionMs,
            ...(flags.seedCandidate !== undefined ? { seedCandidate: flags.seedCandidate } : {}),
            ...withUi(flags),
          },
          io,
        ),
      );
    });

  const run = program
    .command('run')
    .description('an optimization from CONFIG.json: models on an OpenAI-compatible endpoint (OPENAI_BASE_URL, OPENAI_API_KEY) or "local:<path to a .gguf>" run in this process, the chat task, your own adapter module, or an optimizeAnything evaluator module ("evaluator")')
    .argument('<config>', 'CONFIG.json; its paths are relative to it')
    .option('--resume', 'continue the run in the config\'s runDir instead of refusing a non-empty directory')
    .option('--json', 'print the OptimizeResult as JSON on the last line of stdout')
    .option('--inspect', 'record XState inspection events to inspect.jsonl in the run directory, and the worker slots and proposals in flight to activity.jsonl (for gepa-actors watch)')
    .option('--budget <B>', 'maximum metric calls (the config\'s maxMetricCalls)', parsePositiveInt)
    .option('--seed <S>', 'the optimizer\'s seed (the config\'s seed)', parseInteger)
    .option('--run-dir <DIR>', 'the run directory, relative to the current directory (the config\'s runDir)')
    .addOption(new Option('--schedule <schedule>', 'batched, batched:PxN or async:K[xN] (the config\'s schedule)').argParser(parseScheduleOption))
    .option('--reflection-model <MODEL>', 'the reflection model (the config\'s reflectionModel)')
    .option('--seed-candidate <F>', 'start from this JSON object of named texts (the config\'s seedCandidate)');
  addUiOptions(run).action(async (config: string, flags: RunFlags & UiFlags) => {
    const seedCandidateFile = flags.seedCandidate !== undefined ? resolve(io.cwd, flags.seedCandidate) : undefined;
    const overrides = {
      ...(flags.budget !== undefined ? { maxMetricCalls: flags.budget } : {}),
      ...(flags.seed !== undefined ? { seed: flags.seed } : {}),
      ...(flags.runDir !== undefined ? { runDir: resolve(io.cwd, flags.runDir) } : {}),
      ...(flags.schedule !== undefined ? { schedule: flags.schedule } : {}),
      ...(flags.reflectionModel !== undefined ? { reflectionModel: flags.reflectionModel } : {}),
      ...(seedCandidateFile !== undefined ? { seedCandidate: await readSeedTexts(seedCandidateFile) } : {}),
    };
    const options = { resume: flags.resume === true, json: flags.json === true, inspect: flags.inspect === true, overrides, ...(seedCandidateFile ? { seedCandidateFile } : {}), ...withUi(flags) };
    setExitCode(await runCommand(config, options, io));
  });

  addWorkbenchCommands(program, io, setExitCode);

  program
    .command('worker')
    .description('serve metric-call jobs of runs that use the bullmq executor (worker --help for its flags)')
    // The worker parses its own flags (src/worker/workerCommand.ts): pass them through untouched.
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .argument('[flags...]')
    .action(async (flags: string[]) => {
      setExitCode(
        // -h, like every other command's; the worker's own parser knows only --help.
        await workerCommand(flags.map((flag) => (flag === '-h' ? '--help' : flag)), {
          stdout: (line) => void io.stdout.write(`${line}\n`),
          stderr: (line) => void io.stderr.write(`${line}\n`),
        }),
      );
    });

  /** The --ui flags as the commands take them (checked: a remote host needs --allow-remote). */
  function withUi(flags: UiFlags): { ui?: UiSettings } {
    const ui = uiSettings(flags, io);
    return ui ? { ui } : {};
  }

  return program;
}

interface UiFlags {
  ui?: boolean;
  uiPort?: number;
  uiHost?: string;
  allowRemote?: boolean;
}

/** Runs the CLI on `argv` (without node and the script) and returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  let exitCode = EXIT_OK;
  const program = buildProgram(io, (code) => {
    exitCode = code;
  });
  let telemetry: OtlpExport | undefined;
  try {
    telemetry = await startOtlpExport(process.env, (message) => void io.stderr.write(`gepa-actors: ${terminalSafe(message)}\n`));
    // `help worker` is `worker --help`: the worker's flags are its own, so is its help text.
    const args = argv[0] === 'help' && argv[1] === 'worker' ? ['worker', '--help'] : [...argv];
    await program.parseAsync(args, { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help (`--help`, `help <command>`) and version asked for are success (commander's exit
      // code 0); bare `gepa-actors` and every parse failure are usage errors.
      return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    }
    const message = errorMessage(error);
    io.stderr.write(`gepa-actors: ${terminalSafe(message)}\n`);
    if (error instanceof InterruptedError) return EXIT_INTERRUPTED;
    // A run directory that is damaged or in use is a bad argument too: choose or repair another.
    const usage = error instanceof UsageError || error instanceof ConfigError || error instanceof RunDirectoryError;
    return usage ? EXIT_USAGE : EXIT_FAILURE;
  } finally {
    // The spans and metrics still buffered are sent before the command returns, whatever its outcome.
    await telemetry?.shutdown().catch((error: unknown) => void io.stderr.write(`gepa-actors: sending telemetry failed: ${terminalSafe(errorMessage(error))}\n`));
  }
}
