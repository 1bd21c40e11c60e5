// The budgets of a resumed run. maxMetricCalls and maxCostUsd may be raised on resume (a
// finished run continues: "it is still improving, give it more calls"), never lowered below
// what the run was last given: the log holds work paid under that budget, and replaying it
// under a smaller one would pass the cap. Each raise is logged, so a further resume with the
// original config continues under the raised budget instead of stopping short of it.
import { ConfigError } from '../errors/configError.js';
import type { RunLogRecord } from './runLog.js';

export const RESUMABLE_BUDGETS = ['maxMetricCalls', 'maxCostUsd'] as const;
type BudgetName = (typeof RESUMABLE_BUDGETS)[number];

/** The budgets a resume may raise; a budget left undefined has no limit. */
export interface RunBudgets {
  /** The metric-call budget. */
  maxMetricCalls?: number;
  /** The dollar budget. */
  maxCostUsd?: number;
}

export interface ResumedBudgets {
  /** What the run spends up to in this process. */
  budgets: RunBudgets;
  /** Set when this resume raised a budget: the record to log before any work. */
  raised?: Extract<RunLogRecord, { t: 'budget' }>;
  /** The budgets before this resume (the original config's, or the last raise's). */
  previous: RunBudgets;
  /** config.json's budgets: what the run started with. */
  original: RunBudgets;
}

const limit = (value: number | undefined) => value ?? Number.POSITIVE_INFINITY;
const shown = (name: BudgetName, value: number | undefined) =>
  value === undefined ? 'no limit' : name === 'maxCostUsd' ? `$${value}` : `${value} calls`;

/** The budgets a `budget` record of the log sets (null: no limit). */
export function budgetsOf(record: Extract<RunLogRecord, { t: 'budget' }>): RunBudgets {
  return {
    ...(record.maxMetricCalls !== null ? { maxMetricCalls: record.maxMetricCalls } : {}),
    ...(record.maxCostUsd !== null ? { maxCostUsd: record.maxCostUsd } : {}),
  };
}

/** The budgets of config.json, replaced by each `budget` record of the log in turn. */
export function loggedBudgets(original: RunBudgets, records: readonly RunLogRecord[]): RunBudgets {
  let budgets = original;
  for (const r of records) if (r.t === 'budget') budgets = budgetsOf(r);
  return budgets;
}

/**
 * `requested` is the resuming config's; `original` config.json's; `previous` the last logged.
 * A budget equal to the original means "as before": the last raise stands.
 */
export function resumeBudgets(original: RunBudgets, previous: RunBudgets, requested: RunBudgets): ResumedBudgets {
  const budgets: RunBudgets = {};
  const refusals: string[] = [];
  let raised = false;
  for (const name of RESUMABLE_BUDGETS) {
    const wanted = requested[name] === original[name] ? previous[name] : requested[name];
    if (limit(wanted) < limit(previous[name])) {
      refusals.push(
        `${name}: ${shown(name, requested[name])} now, but the run was given ${shown(name, previous[name])}; ` +
          `a budget can be raised on resume, not lowered (resume with ${shown(name, previous[name])} or more)`,
      );
    }
    if (limit(wanted) > limit(previous[name])) raised = true;
    if (wanted !== undefined) budgets[name] = wanted;
  }
  if (refusals.length > 0) throw new ConfigError(`cannot resume with a smaller budget: ${refusals.join('; ')}`);
  return {
    budgets,
    previous,
    original,
    ...(raised ? { raised: { t: 'budget' as const, maxMetricCalls: budgets.maxMetricCalls ?? null, maxCostUsd: budgets.maxCostUsd ?? null } } : {}),
  };
}
