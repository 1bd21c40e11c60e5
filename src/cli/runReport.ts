// Writes report.html for a CLI run from what its session recorded. A resumed run that was
// already finished does no work in this process; its existing report is kept rather than
// replaced by one with an empty timeline. Tokens per model, the best candidate's valset
// answers and the failovers are read from the run log, which holds every process's calls
// (workers' included).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPORT_FILE, writeReport, type ReportInput } from '../report/renderReport.js';
import { RUN_FILES } from '../storage/runDirectory.js';
import { readRunLog } from '../storage/runLog.js';
import type { ModelUsage } from '../report/modelUsage.js';
import type { RunObservation } from '../report/runObserver.js';
import { totalCostText } from '../report/usageTable.js';
import type { SessionOutput } from './runSession.js';
import { formatReruns, summarizeReruns } from '../report/rerunSummary.js';
import type { RerunNotice } from '../gepa/core/runEvent.js';

/** What the run's calls cost and answered: from the run log when there is one (every process's calls), else this process's. */
export function runObservation(runDir: string | undefined, session: SessionOutput): RunObservation {
  const log = runDir === undefined ? undefined : join(runDir, RUN_FILES.log);
  return log !== undefined && existsSync(log) ? session.observation.fromLog(readRunLog(log).records, session.valIds) : session.observation;
}

/** The run's failovers on BullMQ workers: from the run log when there is one (every process's), else this process's. */
export function runReruns(runDir: string | undefined, session: SessionOutput): RerunNotice[] {
  const log = runDir === undefined ? undefined : join(runDir, RUN_FILES.log);
  if (log === undefined || !existsSync(log)) return session.reruns;
  return readRunLog(log).records.flatMap((record) => {
    if (record.t !== 'rerun') return [];
    const { t: _t, ...notice } = record;
    return [notice];
  });
}

/** The line the summary and the report show for the run's failovers, when it had any. */
export function rerunLine(runDir: string | undefined, session: SessionOutput): string | undefined {
  const summary = summarizeReruns(runReruns(runDir, session));
  return summary && formatReruns(summary);
}

/** The run's dollars as the report words them ("unpriced" when no call had a price, never $0), and its tokens per model. */
export function runSpending(runDir: string | undefined, session: SessionOutput): { costText: string; modelUsage: ModelUsage[] } {
  const modelUsage = runObservation(runDir, session).usage();
  return { costText: totalCostText(session.result.costUsd, modelUsage), modelUsage };
}

export async function writeRunReport(
  runDir: string,
  session: SessionOutput,
  details: { title: string; facts?: ReportInput['facts'] },
): Promise<string> {
  const path = join(runDir, REPORT_FILE);
  if (session.slotIntervals.length === 0 && existsSync(path)) return path;
  const { settings } = session;
  const observation = runObservation(runDir, session);
  const failover = summarizeReruns(runReruns(runDir, session));
  const facts = [...(details.facts ?? []), ...(failover ? [{ label: 'calls re-run (failover)', value: String(failover.rerun + failover.failed), sub: formatReruns(failover) }] : [])];
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
    ...(facts.length > 0 ? { facts } : {}),
  });
}
