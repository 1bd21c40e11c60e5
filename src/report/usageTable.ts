// The report's tokens and cost per model: calls, input and output tokens, dollars, one row per
// model (task, then reflection). A model whose calls reported no dollars is "unpriced", never $0;
// a partly priced one shows its dollars and how many calls were unpriced.
import { escapeHtml } from './htmlEscape.js';
import type { ModelUsage } from './modelUsage.js';
import type { ObservationSource } from './runObserver.js';

/** Dollars as the report prints them everywhere: cents, or five decimals below a cent. */
export const dollars = (x: number) => (x === 0 ? '$0' : x < 0.01 ? `$${x.toFixed(5)}` : `$${x.toFixed(2)}`);

/** A model's dollars: "unpriced" when no call reported any. */
export function costText(row: Pick<ModelUsage, 'calls' | 'costUsd' | 'unpricedCalls'>): string {
  if (row.calls > 0 && row.unpricedCalls === row.calls) return 'unpriced';
  if (row.unpricedCalls > 0) return `${dollars(row.costUsd)} + ${row.unpricedCalls} unpriced calls`;
  return dollars(row.costUsd);
}

/**
 * The run's dollars for the summary card and the CLI: "unpriced" when no call of any model had a
 * price and nothing was paid (a run whose adapter threw on every call made no priced call either).
 */
export function totalCostText(costUsd: number, rows: readonly ModelUsage[] | undefined): string {
  if (rows === undefined) return dollars(costUsd);
  const priced = rows.reduce((n, r) => n + r.calls - r.unpricedCalls, 0);
  const unpriced = rows.reduce((n, r) => n + r.unpricedCalls, 0);
  if (priced === 0 && costUsd === 0) return 'unpriced';
  return unpriced > 0 ? `${dollars(costUsd)} + unpriced` : dollars(costUsd);
}

const tokens = (row: ModelUsage, n: number) => (row.callsWithTokens === 0 ? 'not reported' : n.toLocaleString('en-US'));

/** One model's row of the table as a line of text (the CLI summary): calls, input and output tokens, dollars. */
export function usageLine(row: ModelUsage): string {
  const partial = row.callsWithTokens > 0 && row.callsWithTokens < row.calls ? ` (${row.callsWithTokens} of ${row.calls} calls reported tokens)` : '';
  const counted = row.callsWithTokens === 0 ? 'tokens not reported' : `${tokens(row, row.inputTokens)} input + ${tokens(row, row.outputTokens)} output${partial}`;
  return `tokens, ${row.role} ${row.model}: ${row.calls} calls, ${counted}, ${costText(row)}`;
}

export function renderUsageTable(rows: readonly ModelUsage[] | undefined, from: ObservationSource = 'this process'): string {
  if (rows === undefined) return '<p class="muted">Not recorded: the report was written without observing the run\'s calls.</p>';
  if (rows.length === 0) return from === 'the run log' ? '<p class="muted">The run log holds no model calls.</p>' : '<p class="muted">No model calls were made in this process (all replayed, or run on workers).</p>';
  const body = rows
    .map((r) => {
      const partial = r.callsWithTokens > 0 && r.callsWithTokens < r.calls ? ` <span class="muted">(${r.callsWithTokens} of ${r.calls} calls reported tokens)</span>` : '';
      return (
        `<tr class="model-usage" data-role="${r.role}"><td>${escapeHtml(r.role)}</td><td><code>${escapeHtml(r.model)}</code></td><td class="num">${r.calls}</td>` +
        `<td class="num">${tokens(r, r.inputTokens)}</td><td class="num">${tokens(r, r.outputTokens)}${partial}</td><td class="num cost">${escapeHtml(costText(r))}</td></tr>`
      );
    })
    .join('');
  return (
    `<table class="usage"><thead><tr><th>role</th><th>model</th><th class="num">calls</th><th class="num">input tokens</th><th class="num">output tokens</th><th class="num">cost</th></tr></thead><tbody>${body}</tbody></table>` +
    `<p class="muted">${from === 'the run log' ? 'Every call of the run, from its log (every process and worker)' : 'Calls made by this process'}, as each reported its tokens and dollars; cached replies cost $0.</p>`
  );
}
