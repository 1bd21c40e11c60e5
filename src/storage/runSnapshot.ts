// state.json of a run directory: a compact picture of the run for people and reports (the pool,
// the best candidate, what was spent, why it stopped), folded from the RunEvents the optimizer
// emits. Resuming never reads it: the log is the truth, this is its summary.
import type { Candidate } from '../gepa/core/adapter.js';
import type { OptimizeResult } from '../gepa/core/optimizeResult.js';
import type { RunEvent } from '../gepa/core/runEvent.js';

/** A pool candidate as state.json shows it. */
export interface SnapshotCandidate {
  /** Its pool index. */
  index: number;
  /** Pool indices of its parents. */
  parents: number[];
  /** Absent until the seed's valset evaluation is in. */
  valScore?: number;
  /** Its texts. */
  candidate?: Candidate;
}

/** state.json: where a run stands, for people and reports (resuming reads the log, never this). */
export interface RunSnapshot {
  /** The file's format version. */
  version: 1;
  /** 'finished' once the run's result is logged. */
  status: 'running' | 'finished';
  /** The pool so far. */
  candidates: SnapshotCandidate[];
  /** Pool index of the best candidate. */
  bestIndex: number;
  /** Its mean valset score, once known. */
  bestScore?: number;
  /** Candidates on at least one Pareto front. */
  frontSize: number;
  /** Metric calls paid so far. */
  metricCalls: number;
  /** Dollars spent so far. */
  costUsd: number;
  /** Reflection calls, once the run has ended. */
  reflectionCalls?: number;
  /** Why the run stopped, once it has. */
  stopReason?: string;
}

export function initialSnapshot(seedCandidate: Candidate): RunSnapshot {
  return {
    version: 1,
    status: 'running',
    candidates: [{ index: 0, parents: [], candidate: seedCandidate }],
    bestIndex: 0,
    frontSize: 0,
    metricCalls: 0,
    costUsd: 0,
  };
}

/** The snapshot after `event`; the same object when the event changes nothing it shows. */
export function foldRunEvent(snapshot: RunSnapshot, event: RunEvent): RunSnapshot {
  switch (event.type) {
    case 'seed.written':
      return { ...snapshot, candidates: snapshot.candidates.map((c) => (c.index === 0 ? { ...c, candidate: event.candidate } : c)) };
    case 'candidate.accepted': {
      const candidates = snapshot.candidates.filter((c) => c.index !== event.index);
      candidates.push({ index: event.index, parents: event.parents, valScore: event.valScore, ...(event.candidate ? { candidate: event.candidate } : {}) });
      candidates.sort((a, b) => a.index - b.index);
      return { ...snapshot, candidates };
    }
    case 'front.updated': {
      // The first front is the seed's alone: its best score is the seed's valset score.
      const candidates = snapshot.candidates.map((c) => (c.index === 0 && c.valScore === undefined ? { ...c, valScore: event.bestScore } : c));
      return { ...snapshot, candidates, bestIndex: event.bestIndex, bestScore: event.bestScore, frontSize: event.frontSize };
    }
    case 'budget.updated':
      return { ...snapshot, metricCalls: event.metricCalls, costUsd: event.costUsd };
    case 'run.ended':
      return { ...snapshot, stopReason: event.stopReason };
    default:
      return snapshot;
  }
}

export function finishedSnapshot(result: OptimizeResult, frontSize: number): RunSnapshot {
  return {
    version: 1,
    status: 'finished',
    candidates: result.candidates.map((candidate, index) => ({ index, parents: result.parents[index] ?? [], valScore: result.valScores[index], candidate })),
    bestIndex: result.bestIndex,
    bestScore: result.bestScore,
    frontSize,
    metricCalls: result.metricCalls,
    costUsd: result.costUsd,
    reflectionCalls: result.reflectionCalls,
    stopReason: result.stopReason,
  };
}
