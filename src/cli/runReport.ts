// Writes report.html for a CLI run from what its session recorded. A resumed run that was
// already finished does no work in this process; its existing report is kept rather than
// replaced by one with an empty timeline. Tokens per model and the best candidate's valset
// answers are read from the run log, which holds every process's calls (workers' included).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPORT_FILE, writeReport, type ReportInput } from '../report/renderReport.js';
import { RUN_FILES } from '../storage/runDirectory.js';
import { readRunLog } from '../storage/runLog.js';
import type { SessionOutput } from './runSession.js';

export async function writeRunReport(
  runDir: string,
  session: SessionOutput,
  details: { title: string; facts?: ReportInput['facts'] },
): Promise<string> {
  const path = join(runDir, REPORT_FILE);
  if (session.slotIntervals.length === 0 && existsSync(path)) return path;
  const { settings } = session;
  const log = join(runDir, RUN_FILES.log);
  const observation = existsSync(log) ? session.observation.fromLog(readRunLog(log).records, session.valIds) : session.observation;
  return writeReport(runDir, {
    title: details.title,
    result: session.result,
    workers: settings.workers,
    schedule: settings.schedule,
    minibatchSize: settings.minibatchSize,
    ...(settings.maxMetricCalls !== undefined ? { budget: settings.maxMetricCalls } : {}),
    slotIntervals: session.slotIntervals,
    runStartedAt: session.startedAt,
    ...(session.inspection ? { inspection: session.inspection } : {}),
    modelUsage: observation.usage(),
    valsetAnswers: observation.valsetAnswers(session.result.bestCandidate),
    observedFrom: observation.source,
    ...(details.facts ? { facts: details.facts } : {}),
  });
}
