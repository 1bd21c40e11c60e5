// The held-out selection set (`holdout`, gepa issues #261 and #133, its PR #308): the valset
// chose which candidates survived the search, so its best is biased toward it. At the end, the
// top candidates of the Pareto front (by valset mean, HOLDOUT_CANDIDATES of them) are scored on
// examples the search never saw, and the best of them there is the run's bestCandidate. Their
// calls are held from the budget from the start (the search stops that much earlier), so the
// budget is never exceeded. A run stopped by time, dollars, a request or an error is not scored:
// the valset's choice stands, and the result says why.
import { holdCalls, settle, type BudgetLedger, type Reservation } from '../../budget/budgetLedger.js';
import { poolFronts, type CandidatePool } from '../core/candidatePool.js';
import { mean } from '../core/scores.js';
import { paretoFrontMembers } from '../strategies/parentSelection.js';
import type { Candidate, Evaluation } from '../core/adapter.js';
import type { HoldoutResult, OptimizeResult } from '../core/optimizeResult.js';
import type { StopReason } from '../core/stopReason.js';
import type { FrontType, TieOrder } from '../../settingValues.js';

/**
 * How many of the front's best (by valset mean) are scored on the holdout set. Three: the choice
 * the valset may have biased is among its top few, each scored candidate costs a holdout
 * evaluation held from the search's budget from the start, and a front on a small valset holds
 * few members anyway (an instance front grows to dozens on a large one: scoring it all would
 * spend a share of the budget that grows with it).
 */
export const HOLDOUT_CANDIDATES = 3;

/** The holdout's scoring as the run holds it: plain data. */
export interface HoldoutState {
  /** The calls held for it from the start. */
  reservation: Reservation;
  /** The candidates asked for, best valset mean first. */
  candidates: number[];
  /** Their holdout scores as they arrive (absent: not yet, or the evaluation could not complete). */
  subscores: Array<number[] | null>;
  /** Replies still awaited. */
  pending: number;
  /** Metric calls its evaluations paid. */
  paidCalls: number;
  /** Why it was not scored. */
  skipped?: string;
}

/** The calls the holdout's scoring may make: every candidate scored on every holdout example. */
export const holdoutCalls = (holdoutSize: number): number => HOLDOUT_CANDIDATES * holdoutSize;

/** The ledger with the holdout's calls held from the start, and what holds them. */
export function holdHoldoutCalls(ledger: BudgetLedger, holdoutSize: number): { ledger: BudgetLedger; holdout: HoldoutState } {
  const held = holdCalls(ledger, holdoutCalls(holdoutSize));
  return { ledger: held.ledger, holdout: { reservation: held.reservation, candidates: [], subscores: [], pending: 0, paidCalls: 0 } };
}

/** Stops after which the holdout is not scored: the time is up, the dollars are spent, the run was cut short or failed. */
const SKIPPING: Partial<Record<string, string>> = {
  timeout: 'the run stopped on its time limit',
  maxCostUsd: 'the dollar budget was spent',
  aborted: 'the run was aborted',
  stopped: 'the run was stopped (a resume finishes it and scores the holdout)',
  error: 'the run failed',
};

/** The candidates to score: the front's members, best valset mean first (the earlier among equals), at most HOLDOUT_CANDIDATES. */
export function holdoutCandidates(pool: CandidatePool, frontType: FrontType, tieOrder: TieOrder): number[] {
  const members = paretoFrontMembers(poolFronts(pool, frontType), pool.valScores, tieOrder);
  return [...members].sort((a, b) => (pool.valScores[b] ?? 0) - (pool.valScores[a] ?? 0) || a - b).slice(0, HOLDOUT_CANDIDATES);
}

/** What the run asks for at its end: the holdout state, and one evaluation per candidate (none when skipped). */
export function planHoldout(
  holdout: HoldoutState,
  run: { pool: CandidatePool; stopReason?: StopReason },
  settings: { frontType: FrontType; tieOrder: TieOrder },
): { holdout: HoldoutState; asks: Array<{ index: number; candidate: Candidate; hash: string }> } {
  const skipped = SKIPPING[run.stopReason ?? ''];
  if (skipped !== undefined) return { holdout: { ...holdout, skipped }, asks: [] };
  const candidates = holdoutCandidates(run.pool, settings.frontType, settings.tieOrder);
  const asks = candidates.map((index) => ({ index, candidate: run.pool.candidates[index] as Candidate, hash: run.pool.hashes[index] as string }));
  return { holdout: { ...holdout, candidates, subscores: candidates.map(() => null), pending: candidates.length }, asks };
}

/** A holdout evaluation's reply folded in (`evaluations` absent: it could not complete); `done` once none is awaited. */
export function foldHoldoutReply(holdout: HoldoutState, at: number, reply: { paidCalls: number; evaluations?: readonly Evaluation[] }): { holdout: HoldoutState; done: boolean } {
  const subscores = holdout.subscores.map((s, i) => (i === at && reply.evaluations ? reply.evaluations.map((e) => e.score) : s));
  const next = { ...holdout, subscores, pending: holdout.pending - 1, paidCalls: holdout.paidCalls + reply.paidCalls };
  return { holdout: next, done: next.pending === 0 };
}

/** The ledger with the holdout's reservation settled by what its evaluations paid. */
export const settleHoldout = (ledger: BudgetLedger, holdout: HoldoutState): BudgetLedger => settle(ledger, holdout.reservation, holdout.paidCalls);

/** The result with the holdout's choice: bestCandidate is the best scored on the holdout set (the better valset mean among equals). */
export function withHoldout(result: OptimizeResult, holdout: HoldoutState | undefined): OptimizeResult {
  if (!holdout) return result;
  if (holdout.skipped !== undefined) return { ...result, holdout: { candidates: [], scores: [], subscores: [], skipped: holdout.skipped } };
  const scored = holdout.candidates.flatMap((index, i) => {
    const subscores = holdout.subscores[i];
    return subscores ? [{ index, subscores, score: mean(subscores) }] : [];
  });
  const report: HoldoutResult = { candidates: scored.map((s) => s.index), scores: scored.map((s) => s.score), subscores: scored.map((s) => s.subscores) };
  // Ordered best valset mean first: the first of the highest holdout scores is the better by the valset too.
  const chosen = scored.reduce<(typeof scored)[number] | undefined>((best, s) => (best === undefined || s.score > best.score ? s : best), undefined);
  if (!chosen) return { ...result, holdout: { ...report, skipped: 'no holdout evaluation completed' } };
  return {
    ...result,
    bestIndex: chosen.index,
    bestCandidate: result.candidates[chosen.index] as Candidate,
    bestScore: result.valScores[chosen.index] ?? 0,
    holdoutScore: chosen.score,
    holdout: report,
  };
}
