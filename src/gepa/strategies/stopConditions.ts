// When a run stops of its own accord (the caller's signal and the timeout are events, not
// conditions): the target score reached, the best candidate perfect (with skipPerfectScore),
// too many steps without a better best, or a budget that cannot pay for one more proposal.
// The reason strings are the result's stopReason.

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

/**
 * How many proposals of worst-case cost `callsPerTask` the budget can still start, given the
 * metric calls left (Infinity without a limit): none once the dollars left cannot pay for the
 * dearest call seen (dollars are reserved per call, by the evaluator).
 */
export function affordableTasks(remainingCalls: number, callsPerTask: number, dollarsExhausted = false): number {
  if (dollarsExhausted) return 0;
  return Math.max(0, Math.floor(remainingCalls / callsPerTask));
}

/** Why the budget stops the run: the limit that cannot pay for one more proposal. */
export function budgetStopReason(remainingCalls: number, callsPerTask: number): string {
  return remainingCalls < callsPerTask ? 'maxMetricCalls' : 'maxCostUsd';
}
