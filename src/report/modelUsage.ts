// Tokens and dollars per model, tallied call by call from what each call reported: an LmReply's
// usage and costUsd (reflection), an Evaluation's usage and costUsd (a task model inside the
// adapter). A call that reported no dollars counts as unpriced, so a model without a price reads
// "unpriced" in the report, never "$0".
import type { TokenUsage } from '../lm/priceTable.js';

/** Which model a usage row is: the task model (inside the adapter) or the reflection model. */
export type ModelRole = 'task' | 'reflection';

/** One model's calls, tokens and dollars in a run (report.html's tokens per model). */
export interface ModelUsage {
  /** The task model (inside the adapter) or the reflection model. */
  role: ModelRole;
  /** The model's name. */
  model: string;
  /** Calls made. */
  calls: number;
  /** Calls that reported token usage; the token sums cover only those. */
  callsWithTokens: number;
  /** Prompt tokens of those calls. */
  inputTokens: number;
  /** Completion tokens of those calls. */
  outputTokens: number;
  /** Dollars of the calls that reported a cost. */
  costUsd: number;
  /** Calls that reported no cost (a model without a price, an adapter that does not say). */
  unpricedCalls: number;
}

export class ModelUsageTally {
  private readonly byKey = new Map<string, ModelUsage>();

  /** One call: its tokens and dollars as the call reported them (undefined: not reported). */
  record(role: ModelRole, model: string, usage: TokenUsage | undefined, costUsd: number | undefined): void {
    const key = `${role}\u0000${model}`;
    let row = this.byKey.get(key);
    if (!row) {
      row = { role, model, calls: 0, callsWithTokens: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, unpricedCalls: 0 };
      this.byKey.set(key, row);
    }
    row.calls++;
    if (usage) {
      row.callsWithTokens++;
      row.inputTokens += usage.promptTokens;
      row.outputTokens += usage.completionTokens;
    }
    if (typeof costUsd === 'number') row.costUsd += costUsd;
    else row.unpricedCalls++;
  }

  /** Task models first, then reflection models, each in the order first seen. */
  rows(): ModelUsage[] {
    const rows = [...this.byKey.values()].map((r) => ({ ...r }));
    return [...rows.filter((r) => r.role === 'task'), ...rows.filter((r) => r.role === 'reflection')];
  }
}
