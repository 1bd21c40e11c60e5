// Writes report.html for a CLI run from what its session recorded. A resumed run that was
// already finished does no work in this process; its existing report is kept rather than
// replaced by one with an empty timeline. Tokens per model, the best candidate's valset
// answers and the failovers are read from the run log, which holds every process's calls
// (workers' included). With --ui the same input is the workbench's finished view, served until Ctrl-C.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPORT_FILE, writeReport, type ReportInput } from '../report/renderReport.js';
import { RUN_FILES } from '../storage/runDirectory.js';
import { readRunLog, type RunLogRecord } from '../storage/runLog.js';
import type { ModelUsage } from '../report/modelUsage.js';
import type { RunObservation } from '../report/runObserver.js';
import { totalCostText } from '../report/usageTable.js';
import type { SessionOutput } from './runSession.js';
import { formatReruns, summarizeReruns } from '../report/rerunSummary.js';
import type { RerunNotice } from '../gepa/core/runEvent.js';
import { writeReportFacts } from '../report/reportFacts.js';
import type { CliIo } from './cliIo.js';
import { untilInterrupted } from './workbenchListen.js';

/** What the run's calls cost and answered: from the run log when there is one (every process's calls), else this process's. */
export function runObservation(runDir: string | undefined, session: SessionOutput): RunObservation {
  const records = finishedRunLog(runDir, session);
  return records ? session.observation.fromLog(records, session.valIds) : session.observation;
}

/** What the summary, the report and the workbench read of a finished session's log: read once per session. */
const readLogs = new WeakMap<SessionOutput, RunLogRecord[] | undefined>();

/** The finished run's log records, when it has a run directory with a log (every process's calls, workers' included). */
function finishedRunLog(runDir: string | undefined, session: SessionOutput): RunLogRecord[] | undefined {
  // Without a run directory there is nothing to read (nor to remember: a caller may pass one later).
  if (runDir === undefined) return undefined;
  if (readLogs.has(session)) return readLogs.get(session);
  const log = join(runDir, RUN_FILES.log);
  const records = existsSync(log) ? readRunLog(log).records : undefined;
  readLogs.set(session, records);
  return records;
}

/** The run's failovers on BullMQ workers: from the run log when there is one (every process's), else this process's. */
export function runReruns(runDir: string | undefined, session: SessionOutput): RerunNotice[] {
  const records = finishedRunLog(runDir, session);
  if (!records) return session.reruns;
  return records.flatMap((record) => {
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

/** The report's input for a CLI run, from what its session recorded (and the run log, when there is one). */
export function runReportInput(runDir: string | undefined, session: SessionOutput, details: { title: string; facts?: ReportInput['facts'] }): ReportInput {
  const { settings } = session;
  const observation = runObservation(runDir, session);
  const failover = summarizeReruns(runReruns(runDir, session));
  const facts = [...(details.facts ?? []), ...(failover ? [{ label: 'calls re-run (failover)', value: String(failover.rerun + failover.failed), sub: formatReruns(failover) }] : [])];
  return {
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
  };
}

export async function writeRunReport(
  runDir: string,
  session: SessionOutput,
  details: { title: string; facts?: ReportInput['facts'] },
): Promise<string> {
  const path = join(runDir, REPORT_FILE);
  if (session.slotIntervals.length === 0 && existsSync(path)) return path;
  const input = runReportInput(runDir, session, details);
  const written = await writeReport(runDir, input);
  // The figures the command added (the failover's too), for the workbench's view of the directory: its cards are the report's.
  if (input.facts) writeReportFacts(runDir, input.facts);
  return written;
}

/**
 * After the summary, with --ui: the workbench shows the finished run (the report's own input) and
 * is served until Ctrl-C, so the page stays open for reading, resuming and branching.
 */
export async function serveFinishedRun(io: CliIo, session: SessionOutput, input: ReportInput): Promise<void> {
  const { workbench } = session;
  if (!workbench) return;
  workbench.finished(input);
  io.stderr.write(`The run is over; the workbench is still served at ${workbench.url} (Ctrl-C to end)\n`);
  try {
    await untilInterrupted(io);
  } finally {
    await workbench.close();
  }
}
