// The OptimizeResult, built from the final pool and the run's counters.
import { bestIndex, type CandidatePool } from './candidatePool.js';
import type { Candidate } from './adapter.js';
import type { FailureCounts, OptimizeResult, ProposalRecord } from './optimizeResult.js';
import type { StopReason } from './stopReason.js';

export interface ResultInput {
  pool: CandidatePool;
  metricCalls: number;
  reflectionCalls: number;
  costUsd: number;
  stopReason: StopReason;
  proposals: ProposalRecord[];
  elapsedMs: number;
  busySlotMs: number;
  workers: number;
  failures?: FailureCounts;
  /** The systemic failure's cause, with stopReason 'error'. */
  error?: string;
  /** The user's stopper that stopped the run, by name. */
  stoppedBy?: string;
}

export function buildResult(input: ResultInput): OptimizeResult {
  const { pool } = input;
  if (pool.candidates.length === 0) {
    const cause = input.error ? `: ${input.error}` : '';
    throw new Error(`the run stopped (${input.stopReason}) before the seed candidate was evaluated${cause}`);
  }
  const best = bestIndex(pool);
  return {
    candidates: [...pool.candidates],
    parents: pool.parents.map((p) => [...p]),
    valScores: [...pool.valScores],
    valSubscores: pool.valSubscores.map((row) => [...row]),
    bestIndex: best,
    bestCandidate: pool.candidates[best] as Candidate,
    bestScore: pool.valScores[best] ?? 0,
    metricCalls: input.metricCalls,
    reflectionCalls: input.reflectionCalls,
    costUsd: input.costUsd,
    discoveryMetricCalls: [...pool.discoveryMetricCalls],
    discoveryElapsedMs: [...pool.discoveryElapsedMs],
    stopReason: input.stopReason,
    ...(input.error !== undefined ? { error: input.error } : {}),
    ...(input.stoppedBy !== undefined ? { stoppedBy: input.stoppedBy } : {}),
    failures: input.failures ?? { total: 0, byKind: {} },
    proposals: input.proposals,
    elapsedMs: input.elapsedMs,
    workerUtilization: input.elapsedMs > 0 ? input.busySlotMs / (input.workers * input.elapsedMs) : 0,
    ...(pool.bestOutputs ? { bestOutputs: pool.bestOutputs } : {}),
    ...tooLongCounts(input.proposals),
  };
}

/** maxCandidateLength's counts over the proposals, when any text was over it. */
function tooLongCounts(proposals: readonly ProposalRecord[]): Pick<OptimizeResult, 'tooLong'> {
  let textsSentBack = 0;
  let proposalsRefused = 0;
  for (const { tooLong } of proposals) {
    if (!tooLong) continue;
    textsSentBack += tooLong.sentBack;
    if (tooLong.refused) proposalsRefused++;
  }
  return textsSentBack > 0 ? { tooLong: { textsSentBack, proposalsRefused } } : {};
}
