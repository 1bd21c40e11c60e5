// invocation.json of a run directory: how the gepa-actors command started the run (its command,
// its flags as it parsed them, paths absolute, the working directory), the report's title and
// the models' names. The workbench reads it to resume a run or branch one with the same command,
// and to name things as the report does. No environment is recorded: a key never reaches a file.
// Written by the command (src/cli/) when its run has opened its directory; a library run has none.
// Room storage/: read by the workbench (src/workbench/).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from './atomicFile.js';

export const INVOCATION_FILE = 'invocation.json';

const invocationSchema = z.object({
  version: z.literal(1),
  /** `demo` or `run`. */
  command: z.enum(['demo', 'run']),
  /** The command's flags after its name (`run`'s absolute config path first), as the command parsed them: no run directory, no --resume, no --json, no workbench. */
  args: z.array(z.string()),
  /** Where it ran: relative paths in `args` are relative to it. */
  cwd: z.string(),
  /** The report's title. */
  title: z.string(),
  /** How the report names the models. */
  models: z.object({ task: z.string(), reflection: z.string() }),
});

/** How the command started a run (invocation.json). */
export type RunInvocation = z.infer<typeof invocationSchema>;

/** Writes invocation.json unless the directory has one: a resumed run keeps the command that started it. */
export function writeInvocation(dir: string, invocation: RunInvocation): void {
  if (existsSync(join(dir, INVOCATION_FILE))) return;
  writeFileAtomic(join(dir, INVOCATION_FILE), `${JSON.stringify(invocation, null, 2)}\n`);
}

/** The directory's invocation.json, or undefined when it has none or it cannot be read. */
export function readInvocation(dir: string): RunInvocation | undefined {
  try {
    const parsed = invocationSchema.safeParse(JSON.parse(readFileSync(join(dir, INVOCATION_FILE), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
