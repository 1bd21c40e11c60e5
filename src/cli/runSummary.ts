// What a run prints at the end: the human summary (scores, calls, time, utilization, cost and
// tokens per model, where the report is, the best candidate's text) on stdout, or with --json on
// stderr with the OptimizeResult as the last line of stdout; and the exit code the result deserves.
import { dirname } from 'node:path';
import { formatDuration } from '../runtimeModel/index.js';
import { formatStaleness, summarizeStaleness } from '../report/stalenessSummary.js';
import { formatScheduleDecision } from '../report/scheduleDecisions.js';
import { formatFailureCounts } from '../evaluation/failureTally.js';
import { plural, stopText, tooLongText } from '../report/runWording.js';
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
  /** The run failed: its message (RunFailedError's) is the last word, on stderr; the summary does not repeat the cause. */
  failure?: Error;
  /** Where the run's paid work is kept (absent: nowhere, no run directory). */
  runDir?: string;
  /** The result as --json prints it, when not `result` itself (an evaluator run's, in the seed's form). */
  jsonResult?: unknown;
}

const indent = (text: string) =>
  text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');

/** With a holdout set: the chosen candidate's holdout score beside its valset score, or why it was not scored. */
function holdoutLines(r: OptimizeResult): string[] {
  if (!r.holdout) return [];
  if (r.holdoutScore === undefined) return [`holdout set not scored: ${r.holdout.skipped ?? 'no holdout evaluation completed'}`];
  const scored = r.holdout.candidates.map((c, i) => `#${c} ${(r.holdout?.scores[i] ?? 0).toFixed(3)}`).join(', ');
  return [`holdout score ${r.holdoutScore.toFixed(3)} (candidate #${r.bestIndex}, chosen on the holdout set among the front's best: ${scored})`];
}

export function formatSummary({ heading, result: r, budget, extra = [], reportPath, costText, modelUsage = [], failure }: SummaryInput): string {
  const seed = r.valScores[0] ?? 0;
  const staleness = summarizeStaleness(r.proposals);
  const lines = [
    heading,
    `best valset score ${r.bestScore.toFixed(3)} (candidate #${r.bestIndex}), seed ${seed.toFixed(3)}`,
    ...holdoutLines(r),
    ...extra,
    `metric calls ${r.metricCalls}${budget !== undefined ? `/${budget}` : ''}, reflections ${r.reflectionCalls}, ` +
      `${plural(r.candidates.length, 'candidate')} from ${plural(r.proposals.length, 'proposal')}`,
    `wall-clock ${formatDuration(r.elapsedMs)}, workers ${Math.round(r.workerUtilization * 100)}% busy, cost ${costText ?? formatUsd(r.costUsd)}, ${stopText(r.stopReason, r.stoppedBy)}`,
    ...(r.scheduleDecisions ?? []).map(formatScheduleDecision),
    ...modelUsage.map(usageLine),
    // A failed run's message says what failed and how many calls did; the summary does not say it twice.
    ...(r.error !== undefined && !failure ? [`error: ${r.error}`] : []),
    ...(r.failures && r.failures.total > 0 && !failure ? [formatFailureCounts(r.failures)] : []),
    ...(r.tooLong ? [tooLongText(r.tooLong)] : []),
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

/** What a failed run's user does next: resume from the run directory once the cause is fixed (only a run directory keeps what was paid for). */
export function failedRunAdvice(runDir: string | undefined): string {
  return runDir !== undefined
    ? `${runDir} keeps what was paid for: fix the cause and run the same command with --resume to continue (the same config; a model that never answered may be renamed, other changes need a new run directory)`
    : 'nothing was kept (no runDir): fix the cause and run it again';
}

/**
 * Prints the summary (or the JSON line, the partial result's for a failed run) and returns the
 * exit code: 1 when the run failed, its message (what failed, the first error, the calls that
 * failed of those made) and what to do next the last line on stderr.
 */
export function printOutcome(io: CliIo, json: boolean, summary: SummaryInput): number {
  // The best candidate's text came from a language model: no escape sequence reaches the terminal.
  const text = terminalSafe(formatSummary(summary));
  if (json) {
    io.stderr.write(text);
    io.stdout.write(`${terminalSafeJson(summary.jsonResult ?? summary.result)}\n`);
  } else {
    io.stdout.write(text);
  }
  if (summary.failure) io.stderr.write(`gepa-actors: ${terminalSafe(summary.failure.message)}. ${failedRunAdvice(summary.runDir)}\n`);
  return summary.failure || summary.result.stopReason.startsWith('error') ? EXIT_FAILURE : EXIT_OK;
}
