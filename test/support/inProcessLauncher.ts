// A CommandLauncher for tests: runs `gepa-actors <args>` in this process (runCli) instead of a
// detached process, so a resumed run or a branch costs no process start; its output goes to the
// log file as the real launcher's would, and 'exit' carries its exit code.
import { appendFileSync } from 'node:fs';
import { EventEmitter } from 'node:events';
import { runCli } from '../../src/cli/program.js';
import type { CommandLauncher, LaunchedCommand } from '../../src/workbench/commandLauncher.js';
import { memoryIo } from './memoryIo.js';

export interface InProcessLaunches {
  launch: CommandLauncher;
  /** Every launch's arguments and (once ended) its exit code. */
  launched: Array<{ args: string[]; done: Promise<number> }>;
}

export function inProcessLauncher(): InProcessLaunches {
  const launched: InProcessLaunches['launched'] = [];
  const launch: CommandLauncher = (args, { cwd, logPath }) => {
    const child = new EventEmitter() as EventEmitter & LaunchedCommand;
    const io = memoryIo({ cwd, onStderr: (text) => appendFileSync(logPath, text) });
    const done = runCli([...args], io).then((code) => {
      appendFileSync(logPath, io.out());
      child.emit('exit', code, null);
      return code;
    });
    launched.push({ args: [...args], done });
    return child;
  };
  return { launch, launched };
}
