// Folding finished proposals into the pool: selected children with a complete valset
// evaluation join in the order given (task order in a batched step), each after the fronts of
// the ones before; every other proposal becomes a record with its reason.
import { addCandidate, indexOfHash, type CandidatePool } from './candidatePool.js';
import { candidateHash } from './candidateHash.js';
import type { Objectives } from './paretoFront.js';
import type { MinibatchOutcome, SelectionDecision } from '../strategies/proposalSelection.js';
import type { Candidate, ProposalRecord } from '../../types.js';

export interface FinishedProposal {
  step: number;
  task: number;
  kind: 'reflective' | 'merge';
  parents: number[];
  outcome: MinibatchOutcome;
  decision: SelectionDecision;
  child?: Candidate;
  valset?: { subscores: number[]; objectives: Array<Objectives | undefined> };
  /** Pool size when the parent was drawn. */
  poolSizeAtStart: number;
  reflectionCostUsd: number;
}

export interface FoldResult {
  pool: CandidatePool;
  records: ProposalRecord[];
  /** Indices of the candidates added. */
  added: number[];
}

export function foldProposals(pool: CandidatePool, finished: readonly FinishedProposal[], metricCallsNow: number, elapsedMsNow = 0): FoldResult {
  const sizeBefore = pool.candidates.length;
  const records: ProposalRecord[] = [];
  const added: number[] = [];
  for (const p of finished) {
    const base = {
      step: p.step,
      task: p.task,
      kind: p.kind,
      parents: p.parents,
      staleness: sizeBefore - p.poolSizeAtStart,
      reflectionCostUsd: p.reflectionCostUsd,
      ...(p.outcome.status === 'judged' ? { parentMinibatchSum: p.outcome.verdict.parentSum, childMinibatchSum: p.outcome.verdict.childSum } : {}),
    };
    if (!p.decision.selected) {
      records.push({ ...base, outcome: p.outcome.status === 'skipped' ? 'skipped' : 'rejected', reason: p.decision.reason });
      continue;
    }
    if (!p.child || !p.valset) {
      records.push({ ...base, outcome: 'rejected', reason: 'the valset evaluation did not complete' });
      continue;
    }
    const existing = indexOfHash(pool, candidateHash(p.child));
    if (existing >= 0) {
      records.push({ ...base, outcome: 'rejected', reason: `child is already in the pool as candidate ${existing}` });
      continue;
    }
    const next = addCandidate(pool, {
      candidate: p.child,
      parents: p.parents,
      subscores: p.valset.subscores,
      objectives: p.valset.objectives,
      metricCallsAtDiscovery: metricCallsNow,
      elapsedMsAtDiscovery: elapsedMsNow,
    });
    pool = next.pool;
    added.push(next.index);
    records.push({ ...base, outcome: 'accepted', reason: 'accepted', candidateIndex: next.index });
  }
  return { pool, records, added };
}
