// Refuses to start a fresh run in a run directory that already holds one: without --resume an
// existing non-empty directory is an error (exit 2) rather than something silently mixed or
// overwritten. With --resume the durable-run code picks the run up from what is there.
import { readdir } from 'node:fs/promises';
import { UsageError } from './exitCodes.js';

export async function checkRunDir(dir: string, resume: boolean): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') throw new UsageError(`runDir: ${dir} exists and is not a directory`);
    throw error;
  }
  if (entries.length > 0 && !resume) {
    throw new UsageError(
      `runDir: ${dir} already holds a run (${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}). ` +
        'Use --resume to continue it, or choose another directory.',
    );
  }
}
