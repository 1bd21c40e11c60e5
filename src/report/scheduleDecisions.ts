// Schedule 'auto''s choices as the report and the CLI summary show them: one line per decision,
// the shape, when (metric calls spent, run time) and why.
import type { ScheduleDecisionRecord } from '../gepa/core/optimizeResult.js';

/** "schedule auto at 30 calls (0.03 s): async 12: <reason>", the reason already naming the shape. */
export function formatScheduleDecision(d: ScheduleDecisionRecord): string {
  return `schedule auto at ${d.atMetricCalls} calls (${(d.atElapsedMs / 1000).toFixed(2)} s): ${d.reason}`;
}
