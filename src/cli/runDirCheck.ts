// Refuses a run directory the command could not use, before any request is made (exit 2), by the
// library's one rule (storage/runDirAccess.ts): one that cannot be written or created, one that
// holds files that are not a run; without --resume, one that holds a run (it would be mixed or
// overwritten); with --resume, one that holds none. With --resume the recorded config (models
// included) must match too: a changed field is refused before the endpoint is even asked.
import { resolve } from 'node:path';
import type { PreparedRun } from '../run/preparedRun.js';
import { checkRunDir as checkRunDirFor } from '../storage/runDirAccess.js';
import { readRunDirectory, resumedSettings, type ExistingRun } from '../storage/runDirectory.js';
import { runConfigRecord } from '../storage/runConfigRecord.js';
import { plural } from '../report/runWording.js';

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
 * Throws RunDirectoryError (or ConfigError) when `dir` cannot be used (the library's rule,
 * storage/runDirAccess.ts's checkRunDir); with --resume, returns the run it holds as read for
 * `prepared` (its log is read here once: amendPreparedRun passes it on).
 */
export async function checkRunDir(dir: string, resume: boolean, prepared?: PreparedRun): Promise<ExistingRun | undefined> {
  checkRunDirFor(dir, resume ? 'resume' : 'new');
  if (!resume) return undefined;
  // Reads only; throws ConfigError naming each field that differs from the recorded run.
  if (!prepared) return undefined;
  const { config, settings, datasetFingerprints } = prepared;
  return readRunDirectory(resolve(dir), runConfigRecord(config, resumedSettings(resolve(dir), config, settings), datasetFingerprints));
}
