// When the search stops of its own accord (the caller's signal and the timeout are events, not
// conditions; a budget that cannot pay for one more proposal is the ledger's refusal,
// src/budget/budgetLedger.ts): the target score reached, the best candidate perfect (with
// skipPerfectScore), too many steps without a better best. The reason strings are the result's stopReason.

export interface ProgressView {
  bestScore: number;
  stepsWithoutImprovement: number;
  targetScore?: number;
  /**
   * Set when skipPerfectScore is on: a best valset mean at or above it stops the run, since every
   * further proposal from a perfect parent would be skipped, and paying for the others cannot
   * raise the best.
   */
  perfectScore?: number;
  maxStepsWithoutImprovement?: number;
}

export function progressStopReason(view: ProgressView): string | null {
  if (view.targetScore !== undefined && view.bestScore >= view.targetScore) return 'targetScore';
  if (view.perfectScore !== undefined && view.bestScore >= view.perfectScore) return 'perfectScore';
  if (view.maxStepsWithoutImprovement !== undefined && view.stepsWithoutImprovement >= view.maxStepsWithoutImprovement) {
    return 'maxStepsWithoutImprovement';
  }
  return null;
}
