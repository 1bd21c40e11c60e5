// Refuses a run directory the command could not use, before any request is made (exit 2): one
// that cannot be written or created; without --resume, an existing non-empty one (it would be
// mixed or overwritten); with --resume, one that holds no run (nothing to continue, and the
// user's files there are left alone). With --resume the recorded config (models included) must
// match too: a changed field is refused before the endpoint is even asked.
import { readdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { PreparedRun } from '../run/preparedRun.js';
import { checkRunDirUsable } from '../storage/runDirAccess.js';
import { readRunDirectory, resumedSettings, RUN_FILES, type ExistingRun } from '../storage/runDirectory.js';
import { runConfigRecord } from '../storage/runConfigRecord.js';
import { UsageError } from './exitCodes.js';
import { plural } from '../report/runWording.js';

async function entriesOf(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** What a resume continues, in a line for the user: where, how much is logged, what budget changed. */
export function resumeNotice(existing: ExistingRun): string {
  // A logged failure is no answer: resuming makes that call again (RunJournal), so it is not "replayed".
  const logged = existing.log.records.filter((r) => r.t === 'eval');
  const failed = logged.filter((r) => r.t === 'eval' && r.evaluation.failure !== undefined).length;
  const answered = logged.length - failed;
  const counts = [
    ...(answered > 0 || failed === 0 ? [`${plural(answered, 'metric call')} logged, replayed without being paid again`] : []),
    ...(failed > 0 ? [`${plural(failed, 'failed metric call')} logged, made again (the failed attempts count against the budget too)`] : []),
  ];
  const parts = [`Resuming the run in ${existing.dir}: ${counts.join('; ')}`];
  const raised = existing.budgets?.raised;
  if (existing.corrected) parts.push(`models that never answered renamed: ${existing.corrected.join('; ')}`);
  if (existing.finishedResult) parts.push('it is finished: its result is shown again (raise --budget to continue it)');
  if (raised && existing.budgets) {
    const { previous, budgets } = existing.budgets;
    const show = (value: number | undefined, unit: (v: number) => string) => (value === undefined ? 'no limit' : unit(value));
    if (previous.maxMetricCalls !== budgets.maxMetricCalls) {
      parts.push(`budget raised from ${show(previous.maxMetricCalls, String)} to ${show(budgets.maxMetricCalls, (v) => `${v} metric calls`)}`);
    }
    if (previous.maxCostUsd !== budgets.maxCostUsd) {
      parts.push(`maxCostUsd raised from ${show(previous.maxCostUsd, (v) => `$${v}`)} to ${show(budgets.maxCostUsd, (v) => `$${v}`)}`);
    }
  }
  return parts.join('; ');
}

/**
 * Throws UsageError (or ConfigError) when `dir` cannot be used; with --resume, returns the run it
 * holds as read for `prepared` (its log is read here once: amendPreparedRun passes it on).
 */
export async function checkRunDir(dir: string, resume: boolean, prepared?: PreparedRun): Promise<ExistingRun | undefined> {
  checkRunDirUsable(dir);
  const entries = await entriesOf(dir);
  if (!resume) {
    if (entries.length === 0) return undefined;
    throw new UsageError(
      `runDir: ${dir} already holds ${entries.includes(RUN_FILES.config) ? 'a run' : 'files that are not a run'} (${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}). ` +
        (entries.includes(RUN_FILES.config) ? 'Use --resume to continue it, or choose another directory.' : 'Choose an empty or new directory.'),
    );
  }
  if (!entries.includes(RUN_FILES.config)) {
    throw new UsageError(
      `runDir: ${dir} holds no run to resume (no ${RUN_FILES.config}); ` +
        (entries.length === 0 ? 'leave out --resume to start a new run there.' : 'it was not made by gepa-actors: nothing was written to it. Choose the directory of the run to continue.'),
    );
  }
  // Reads only; throws ConfigError naming each field that differs from the recorded run.
  if (!prepared) return undefined;
  const { config, settings, datasetFingerprints } = prepared;
  return readRunDirectory(resolve(dir), runConfigRecord(config, resumedSettings(resolve(dir), config, settings), datasetFingerprints));
}
