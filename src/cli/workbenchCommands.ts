// `gepa-actors watch <runDir>` (serves its workbench and prints the URL) and `gepa-actors control
// <runDir> drain|stop|resume|branch` (the page's controls, as a command). Loaded by their actions
// only (workbenchOptions.ts defines the commands).
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { RunView } from '../workbench/runView.js';
import { RunDirectoryFollower } from '../workbench/runDirectoryFollower.js';
import { readInvocation } from '../storage/runInvocation.js';
import { ControlError, parseControlRequest, runControl, type ControlRequest } from '../workbench/runControls.js';
import { launchCommand } from '../workbench/commandLauncher.js';
import { startWorkbenchServer } from '../workbench/workbenchServer.js';
import type { CliIo } from './cliIo.js';
import { EXIT_OK, UsageError } from './exitCodes.js';
import { terminalSafe } from './terminalText.js';
import { listenSettings, untilInterrupted, type ControlFlags, type WatchFlags } from './workbenchListen.js';

function existingDirectory(dir: string): string {
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new UsageError(`no such run directory: ${dir}`);
  }
  if (!isDir) throw new UsageError(`${dir} is not a directory`);
  return dir;
}


export async function watchCommand(runDir: string, flags: WatchFlags, io: CliIo): Promise<number> {
  const dir = existingDirectory(resolve(io.cwd, runDir));
  const listen = listenSettings(flags.host, flags.port, flags.allowRemote === true, io, '--host');
  const server = await startWorkbenchServer({ dir }, { ...listen, ...(io.launch ? { launch: io.launch } : {}) });
  // The URL alone on stdout, for scripts and the user's click; the rest on stderr.
  io.stdout.write(`${server.url}\n`);
  io.stderr.write(`watching ${terminalSafe(dir)}: open the URL above (it carries the access token); Ctrl-C to stop\n`);
  try {
    await untilInterrupted(io);
  } finally {
    await server.close();
  }
  return EXIT_OK;
}



export async function controlCommand(runDir: string, action: string, flags: ControlFlags, io: CliIo): Promise<number> {
  const dir = existingDirectory(resolve(io.cwd, runDir));
  const body: Record<string, unknown> = { action };
  if (flags.budget !== undefined) body.budget = flags.budget;
  if (flags.candidate !== undefined) body.candidate = flags.candidate;
  if (flags.schedule !== undefined) body.schedule = flags.schedule;
  if (flags.reflectionModel !== undefined) body.reflectionModel = flags.reflectionModel;
  let request: ControlRequest;
  try {
    request = parseControlRequest(body);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  // The run as its directory shows it now: one look, nothing followed.
  const invocation = readInvocation(dir);
  const view = new RunView(invocation ? { names: invocation.models } : {});
  new RunDirectoryFollower(dir, view, () => {}).poll();
  try {
    const outcome = await runControl({ dir, view, launch: io.launch ?? launchCommand }, request);
    io.stdout.write(flags.json ? `${JSON.stringify({ ok: true, ...outcome })}\n` : `${outcome.message}\n`);
    return EXIT_OK;
  } catch (error) {
    if (error instanceof ControlError) throw new UsageError(`${action}: ${error.message}`);
    throw error;
  }
}

