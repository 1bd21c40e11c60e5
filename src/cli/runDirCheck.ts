// Refuses to start a fresh run in a run directory that already holds one: without --resume an
// existing non-empty directory is an error (exit 2) rather than something silently mixed or
// overwritten. With --resume the durable-run code picks the run up from what is there, once the
// recorded config (models included) is known to match: a changed field is refused before the
// endpoint is even asked.
import { readdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { RunSettings } from '../config/runSettings.js';
import { readRunDirectory, resumedSettings } from '../storage/runDirectory.js';
import { runConfigRecord } from '../storage/runConfigRecord.js';
import type { OptimizeConfig } from '../types.js';
import { UsageError } from './exitCodes.js';

export async function checkRunDir<Example>(dir: string, resume: boolean, config?: OptimizeConfig<Example>, settings?: RunSettings): Promise<void> {
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
  // Reads only; throws ConfigError naming each field that differs from the recorded run.
  if (resume && config && settings) readRunDirectory(resolve(dir), runConfigRecord(config, resumedSettings(resolve(dir), config as OptimizeConfig<unknown>, settings)));
}
