// Folding finished proposals into the pool: selected children with a complete valset
// evaluation join in the order given (task order in a batched step), each after the fronts of
// the ones before, each followed by the refined candidates its evaluation carries (optimizeAnything's
// refiner); every other proposal becomes a record with its reason.
import { decideAlone, rejectionReason } from '../strategies/proposalSelection.js';
import { addCandidate, indexOfHash, poolLookup, type CandidatePool, type NewCandidate } from '../core/candidatePool.js';
import { outcomeOf, type MinibatchOutcome, type Proposal, type ValsetScores } from '../core/proposal.js';
import type { ProposalRecord } from '../core/optimizeResult.js';

export interface FoldResult {
  pool: CandidatePool;
  records: ProposalRecord[];
  /** Indices of the candidates added. */
  added: number[];
  /** Per child added, the refined candidates (optimizeAnything's refiner) that joined right after it. */
  refinedAfter: Record<number, number[]>;
}

/**
 * A candidate and the refined candidates its valset evaluation carries (ValsetScores.refined),
 * added in order: each refined one is its predecessor's child, with its own scores; one already
 * in the pool joins no second time, and the next names that one as its parent.
 */
export function addWithRefinements(pool: CandidatePool, entry: NewCandidate & { valset: ValsetScores }): { pool: CandidatePool; index: number; refined: number[] } {
  const first = addCandidate(pool, entry);
  let grown = first.pool;
  let parent = first.index;
  const refined: number[] = [];
  for (const r of entry.valset.refined ?? []) {
    const known = indexOfHash(grown, r.hash);
    if (known >= 0) {
      parent = known;
      continue;
    }
    const next = addCandidate(grown, {
      candidate: r.candidate,
      hash: r.hash,
      parents: [parent],
      subscores: r.valset.subscores,
      objectives: r.valset.objectives,
      outputs: r.valset.outputs,
      metricCallsAtDiscovery: entry.metricCallsAtDiscovery,
      elapsedMsAtDiscovery: entry.elapsedMsAtDiscovery,
    });
    grown = next.pool;
    parent = next.index;
    refined.push(next.index);
  }
  return { pool: grown, index: first.index, refined };
}

/**
 * A finished proposal's record. Built by assignment, keys in a fixed order (the result's records
 * are compared as JSON): the spreads it was built with before (a base and conditional parts, then
 * the outcome) took V8's slow path, ~2 us a proposal (measured alone).
 */
function recordOf(p: Proposal, outcome: MinibatchOutcome, staleness: number, result: ProposalRecord['outcome'], reason: string): ProposalRecord {
  const record: Omit<ProposalRecord, 'outcome' | 'reason'> & Partial<ProposalRecord> = {
    step: p.step,
    task: p.task,
    kind: p.kind,
    parents: p.parents,
    staleness,
    reflectionCostUsd: p.spend?.reflectionCostUsd ?? 0,
  };
  if (p.rebasedFrom !== undefined) record.rebasedFrom = p.rebasedFrom;
  if (p.rebaseGateExamples !== undefined) record.rebaseGateExamples = p.rebaseGateExamples;
  if (p.siblingOf !== undefined) record.siblingOf = p.siblingOf;
  if (p.tooLong !== undefined) record.tooLong = p.tooLong;
  if (outcome.status === 'judged') {
    record.parentMinibatchSum = outcome.verdict.parentSum;
    record.childMinibatchSum = outcome.verdict.childSum;
  }
  record.outcome = result;
  record.reason = reason;
  return record as ProposalRecord;
}

export function foldProposals(pool: CandidatePool, finished: readonly Proposal[], metricCallsNow: number, elapsedMsNow = 0): FoldResult {
  const sizeBefore = pool.candidates.length;
  const records: ProposalRecord[] = [];
  const added: number[] = [];
  const refinedAfter: Record<number, number[]> = {};
  for (const p of finished) {
    const outcome = outcomeOf(p);
    const staleness = sizeBefore - p.poolSizeAtStart;
    // Without a decision (async, or a proposal that never reached its step's selection) a
    // proposal is decided on its own.
    const decision = p.decision ?? decideAlone(outcome, poolLookup(pool));
    if (!decision.selected) {
      records.push(recordOf(p, outcome, staleness, outcome.status === 'skipped' ? 'skipped' : 'rejected', decision.reason));
      continue;
    }
    if (!p.child || !p.valset || outcome.status !== 'judged') {
      records.push(recordOf(p, outcome, staleness, 'rejected', p.valsetStop ?? 'the valset evaluation did not complete'));
      continue;
    }
    // A twin may have joined since the decision (an earlier task of the step, or, async, a proposal
    // that finished meanwhile).
    const rejected = rejectionReason(outcome, poolLookup(pool));
    if (rejected !== null) {
      records.push(recordOf(p, outcome, staleness, 'rejected', rejected));
      continue;
    }
    const next = addWithRefinements(pool, {
      candidate: p.child,
      hash: outcome.childHash,
      parents: p.parents,
      subscores: p.valset.subscores,
      objectives: p.valset.objectives,
      outputs: p.valset.outputs,
      metricCallsAtDiscovery: metricCallsNow,
      elapsedMsAtDiscovery: elapsedMsNow,
      valset: p.valset,
    });
    pool = next.pool;
    added.push(next.index, ...next.refined);
    if (next.refined.length > 0) refinedAfter[next.index] = next.refined;
    const accepted = recordOf(p, outcome, staleness, 'accepted', 'accepted');
    accepted.candidateIndex = next.index;
    records.push(accepted);
  }
  return { pool, records, added, refinedAfter };
}
