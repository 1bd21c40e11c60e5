// How an exact metric-call budget is spent. Every proposal reserves its worst case (2b + V calls)
// before it starts and is refunded down to what it spent, so k proposals can be in flight only
// while k worst cases fit in what is left; near the end steps narrow (batched) or fewer
// proposals run at once (async), and the run stops when one worst case no longer fits.

/** `count` consecutive steps (batched) or proposals (async) that ran `width` proposals at once. */
export interface WidthRun {
  width: number;
  count: number;
}

export interface BudgetDrainParams {
  /** Calls left for proposals (the budget minus the seed's valset evaluation). */
  budget: number;
  /** k proposals a step, or K in flight. */
  maxWidth: number;
  worstCallsPerProposal: number;
  /** Expected calls one unit spends at a width: a step of `width` proposals, or one proposal. */
  spendPerUnit: (width: number) => number;
}

// Budgets and expected spends are fractional; compare with a tolerance.
const EPSILON = 1e-9;

/** The widths the run goes through, widest first, with how many units ran at each. */
export function drainBudget({ budget, maxWidth, worstCallsPerProposal, spendPerUnit }: BudgetDrainParams): WidthRun[] {
  const runs: WidthRun[] = [];
  let left = budget;
  // While the widest setting fits, spend it in closed form: a long run needs no loop.
  const fullReservation = maxWidth * worstCallsPerProposal;
  if (left + EPSILON >= fullReservation) {
    const count = Math.floor((left - fullReservation) / spendPerUnit(maxWidth) + EPSILON) + 1;
    runs.push({ width: maxWidth, count });
    left -= count * spendPerUnit(maxWidth);
  }
  // The narrowing tail is shorter than maxWidth worst cases, so this loop is short.
  while (left + EPSILON >= worstCallsPerProposal) {
    const width = Math.min(maxWidth, Math.floor(left / worstCallsPerProposal + EPSILON));
    const last = runs[runs.length - 1];
    if (last && last.width === width) last.count += 1;
    else runs.push({ width, count: 1 });
    left -= spendPerUnit(width);
  }
  return runs;
}
