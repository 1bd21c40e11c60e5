// What a run prints at the end: the human summary (scores, calls, time, utilization, cost and
// tokens per model, where the report is, the best candidate's text) on stdout, or with --json on
// stderr with the OptimizeResult as the last line of stdout; and the exit code the result deserves.
import { dirname } from 'node:path';
import { formatDuration } from '../runtimeModel/index.js';
import { formatStaleness, summarizeStaleness } from '../report/stalenessSummary.js';
import { formatScheduleDecision } from '../report/scheduleDecisions.js';
import { formatFailureCounts } from '../evaluation/failureTally.js';
import { plural, stopText } from '../report/runWording.js';
import type { ModelUsage } from '../report/modelUsage.js';
import { usageLine } from '../report/usageTable.js';
import type { OptimizeResult } from '../gepa/core/optimizeResult.js';
import type { CliIo } from './cliIo.js';
import { EXIT_FAILURE, EXIT_OK } from './exitCodes.js';
import { formatUsd } from './progressDisplay.js';
import { terminalSafe, terminalSafeJson } from './terminalText.js';

export interface SummaryInput {
  heading: string;
  result: OptimizeResult;
  budget?: number;
  /** Extra lines, e.g. held-out test scores. */
  extra?: readonly string[];
  reportPath?: string;
  /** The cost as the report words it (e.g. "unpriced"); default the result's dollars. */
  costText?: string;
  /** Tokens and dollars per model, a line each after the cost (as report.html's table). */
  modelUsage?: readonly ModelUsage[];
}

const indent = (text: string) =>
  text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');

export function formatSummary({ heading, result: r, budget, extra = [], reportPath, costText, modelUsage = [] }: SummaryInput): string {
  const seed = r.valScores[0] ?? 0;
  const staleness = summarizeStaleness(r.proposals);
  const lines = [
    heading,
    `best valset score ${r.bestScore.toFixed(3)} (candidate #${r.bestIndex}), seed ${seed.toFixed(3)}`,
    ...extra,
    `metric calls ${r.metricCalls}${budget !== undefined ? `/${budget}` : ''}, reflections ${r.reflectionCalls}, ` +
      `${plural(r.candidates.length, 'candidate')} from ${plural(r.proposals.length, 'proposal')}`,
    `wall-clock ${formatDuration(r.elapsedMs)}, workers ${Math.round(r.workerUtilization * 100)}% busy, cost ${costText ?? formatUsd(r.costUsd)}, ${stopText(r.stopReason)}`,
    ...(r.scheduleDecisions ?? []).map(formatScheduleDecision),
    ...modelUsage.map(usageLine),
    ...(r.error !== undefined ? [`error: ${r.error}`] : []),
    ...(r.failures && r.failures.total > 0 ? [formatFailureCounts(r.failures)] : []),
    // Only a run directory keeps what was paid for: without one there is nothing to resume.
    ...(r.stopReason === 'error' && reportPath ? ['the run is not finished: fix the cause and continue it with --resume (the same config; a model that never answered may be renamed, other changes need a new run directory)'] : []),
    ...((r.stopReason === 'stopped' || r.stopReason === 'aborted') && reportPath
      ? [`the run is not finished: the same command with --resume continues it from ${dirname(reportPath)}`]
      : []),
    // Batched steps freeze the frontier, so only a run without barriers has staleness to report.
    ...(staleness.max > 0 ? [`staleness (candidates that joined while a proposal ran): ${formatStaleness(staleness)}`] : []),
    ...Object.entries(r.bestCandidate).flatMap(([name, text]) => [`best candidate, ${name}:`, indent(text)]),
    // Last, where a user looks for what to open next.
    ...(reportPath ? [`report: ${reportPath}`] : []),
  ];
  return `${lines.join('\n')}\n`;
}

/** Prints the summary (or the JSON line) and returns the exit code: 1 when the run ended in an error. */
export function printOutcome(io: CliIo, json: boolean, summary: SummaryInput): number {
  // The best candidate's text came from a language model: no escape sequence reaches the terminal.
  const text = terminalSafe(formatSummary(summary));
  if (json) {
    io.stderr.write(text);
    io.stdout.write(`${terminalSafeJson(summary.result)}\n`);
  } else {
    io.stdout.write(text);
  }
  return summary.result.stopReason.startsWith('error') ? EXIT_FAILURE : EXIT_OK;
}
