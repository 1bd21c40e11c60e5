// Folding finished proposals into the pool: selected children with a complete valset
// evaluation join in the order given (task order in a batched step), each after the fronts of
// the ones before; every other proposal becomes a record with its reason.
import { decideAlone, rejectionReason } from '../strategies/proposalSelection.js';
import { addCandidate, poolLookup, type CandidatePool } from '../core/candidatePool.js';
import { outcomeOf, type Proposal } from '../core/proposal.js';
import type { ProposalRecord } from '../core/optimizeResult.js';

export interface FoldResult {
  pool: CandidatePool;
  records: ProposalRecord[];
  /** Indices of the candidates added. */
  added: number[];
}

export function foldProposals(pool: CandidatePool, finished: readonly Proposal[], metricCallsNow: number, elapsedMsNow = 0): FoldResult {
  const sizeBefore = pool.candidates.length;
  const records: ProposalRecord[] = [];
  const added: number[] = [];
  for (const p of finished) {
    const outcome = outcomeOf(p);
    const base = {
      step: p.step,
      task: p.task,
      kind: p.kind,
      parents: p.parents,
      staleness: sizeBefore - p.poolSizeAtStart,
      reflectionCostUsd: p.spend?.reflectionCostUsd ?? 0,
      ...(p.rebasedFrom === undefined ? {} : { rebasedFrom: p.rebasedFrom }),
      ...(p.rebaseGateExamples === undefined ? {} : { rebaseGateExamples: p.rebaseGateExamples }),
      ...(p.tooLong === undefined ? {} : { tooLong: p.tooLong }),
      ...(outcome.status === 'judged' ? { parentMinibatchSum: outcome.verdict.parentSum, childMinibatchSum: outcome.verdict.childSum } : {}),
    };
    // Without a decision (async, or a proposal that never reached its step's selection) a
    // proposal is decided on its own.
    const decision = p.decision ?? decideAlone(outcome, poolLookup(pool));
    if (!decision.selected) {
      records.push({ ...base, outcome: outcome.status === 'skipped' ? 'skipped' : 'rejected', reason: decision.reason });
      continue;
    }
    if (!p.child || !p.valset || outcome.status !== 'judged') {
      records.push({ ...base, outcome: 'rejected', reason: p.valsetStop ?? 'the valset evaluation did not complete' });
      continue;
    }
    // A twin may have joined since the decision (an earlier task of the step, or, async, a proposal
    // that finished meanwhile).
    const rejected = rejectionReason(outcome, poolLookup(pool));
    if (rejected !== null) {
      records.push({ ...base, outcome: 'rejected', reason: rejected });
      continue;
    }
    const next = addCandidate(pool, {
      candidate: p.child,
      hash: outcome.childHash,
      parents: p.parents,
      subscores: p.valset.subscores,
      objectives: p.valset.objectives,
      outputs: p.valset.outputs,
      metricCallsAtDiscovery: metricCallsNow,
      elapsedMsAtDiscovery: elapsedMsNow,
    });
    pool = next.pool;
    added.push(next.index);
    records.push({ ...base, outcome: 'accepted', reason: 'accepted', candidateIndex: next.index });
  }
  return { pool, records, added };
}
