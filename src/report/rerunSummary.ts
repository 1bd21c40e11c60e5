// A run's failovers on BullMQ workers in one line ("2 workers lost, 64 calls re-run, 1.1 s
// lost"), for the CLI's summary and report.html: folded from the 'calls.rerun' notices a process
// saw, or from a durable run's {t:'rerun'} log records (every process's). The time lost is the
// union of the spans the run waited on lost workers or hung calls before acting.
import type { RerunNotice } from '../gepa/core/runEvent.js';
import { plural } from './runWording.js';

export interface RerunSummary {
  /** Distinct workers lost. */
  workersLost: number;
  /** Calls run again elsewhere. */
  rerun: number;
  /** Of those, calls run again for running far too long on a live worker. */
  overdue: number;
  /** Calls failed instead, their worker lost too often. */
  failed: number;
  /** Wall-clock the run waited on them before acting, overlaps counted once. */
  lostMs: number;
}

/** Undefined when there was no failover. */
export function summarizeReruns(notices: readonly RerunNotice[]): RerunSummary | undefined {
  if (notices.length === 0) return undefined;
  const workers = new Set(notices.filter((n) => n.reason !== 'call overdue').flatMap((n) => n.workers));
  const count = (reason: RerunNotice['reason']) => notices.filter((n) => n.reason === reason).reduce((sum, n) => sum + n.calls, 0);
  const spans = notices.map((n) => [n.atMs - n.waitedMs, n.atMs] as const).sort((a, b) => a[0] - b[0]);
  let lostMs = 0;
  let reach = -Infinity;
  for (const [from, to] of spans) {
    lostMs += Math.max(0, to - Math.max(from, reach));
    reach = Math.max(reach, to);
  }
  return { workersLost: workers.size, rerun: count('worker lost') + count('call overdue'), overdue: count('call overdue'), failed: count('lost too often'), lostMs };
}

/** "2 workers lost, 64 calls re-run, 1.1 s lost" (and the overdue and failed calls, when any). */
export function formatReruns(s: RerunSummary): string {
  const parts = [
    ...(s.workersLost > 0 ? [`${plural(s.workersLost, 'worker')} lost`] : []),
    `${plural(s.rerun, 'call')} re-run${s.overdue > 0 ? ` (${s.overdue} of them hung on a live worker)` : ''}`,
    ...(s.failed > 0 ? [`${plural(s.failed, 'call')} failed, their worker lost too often`] : []),
    `${(s.lostMs / 1000).toFixed(1)} s lost`,
  ];
  return parts.join(', ');
}

/** One failover as the progress shows it: "failover: 32 calls re-run on other workers (host:1234:0 lost: no heartbeat for 1.0 s)". */
export function describeRerun(n: RerunNotice): string {
  const on = n.workers.join(', ');
  const waited = `${(n.waitedMs / 1000).toFixed(1)} s`;
  if (n.reason === 'worker lost') return `failover: ${plural(n.calls, 'call')} re-run on other workers (${on} lost: no heartbeat for ${waited})`;
  if (n.reason === 'call overdue') return `failover: ${plural(n.calls, 'call')} re-run on other workers (running ${waited} past the usual on ${on})`;
  return `failover: ${plural(n.calls, 'call')} failed (lost with ${on}, its worker lost too often; it may be what kills them)`;
}
