// One proposal's life in one record, from the moment it is planned to the moment it is folded:
// which parents it started from, what its minibatch gate said, whether it was selected and
// granted a valset evaluation, what that evaluation scored and what the proposal spent. The
// optimizer keeps one Proposal per proposal in flight; a proposer's reports are patches to it.
import type { Reservation } from '../../budget/budgetLedger.js';
import type { Objectives } from './paretoFront.js';
import type { Candidate, Evaluation } from './adapter.js';
import type { ProposalRecord } from './optimizeResult.js';

/** The minibatch gate's answer: the proposal was skipped (with why), or its child was judged. */
export interface AcceptanceVerdict {
  accepted: boolean;
  parentSum: number;
  childSum: number;
  margin: number;
}

export type MinibatchOutcome =
  | { task: number; status: 'skipped'; reason: string }
  | { task: number; status: 'judged'; childHash: string; verdict: AcceptanceVerdict };

/** Whether a proposal's child goes on to the valset, and why (not). */
export interface SelectionDecision {
  task: number;
  selected: boolean;
  reason: string;
}

/** A candidate's scores on the whole valset, one entry per valset example. */
export interface ValsetScores {
  subscores: number[];
  objectives: Array<Objectives | null>;
  /** The outputs (kept in the pool only with trackBestOutputs). */
  outputs?: unknown[];
  /**
   * optimizeAnything's refiner on a valset of one example: the refined candidates that scored
   * better, each refined from the one before (the first from this candidate), with their own
   * whole-valset scores. They join the pool right after it, each its predecessor's child.
   */
  refined?: Array<{ candidate: Candidate; hash: string; valset: ValsetScores }>;
}

/** A whole-valset evaluation as ValsetScores, in valset order. */
export const valsetScoresOf = (evaluations: readonly Evaluation[]): ValsetScores => {
  // A refinement scored one example: a whole valset's evaluation only when the valset is that example.
  const refined = evaluations.length === 1 ? evaluations[0]?.refined : undefined;
  return {
    subscores: evaluations.map((e) => e.score),
    // null, not undefined, where an example has none: the run's state is plain data (JSON keeps null in an array).
    objectives: evaluations.map((e) => e.objectives ?? null),
    outputs: evaluations.map((e) => e.output),
    ...(refined && refined.length > 0 ? { refined: refined.map((r) => ({ candidate: r.candidate, hash: r.hash, valset: valsetScoresOf([r.evaluation]) })) } : {}),
  };
};

/** What one proposal paid for. */
export interface ProposalSpend {
  /** Metric calls its requests paid (cache hits excluded). */
  paidCalls: number;
  reflectionCalls: number;
  reflectionCostUsd: number;
  /** Dollars of every call it made, metric calls and reflections. */
  costUsd: number;
}

/** Nothing paid yet: a proposal's spend when it starts. */
export const NOTHING_SPENT: ProposalSpend = { paidCalls: 0, reflectionCalls: 0, reflectionCostUsd: 0, costUsd: 0 };

/**
 * A reply that carries a charge: an evaluation (or a request that failed after some calls ran)
 * pays metric calls, a reflection pays one reflection call; both pay dollars.
 */
export type PaidReply = { type: 'evaluated' | 'evaluator.failed'; paidCalls: number; costUsd: number } | { type: 'reflected'; costUsd: number };

/** What a proposal has spent once `reply` is paid for. */
export function addSpend(spend: ProposalSpend, reply: PaidReply): ProposalSpend {
  const reflection = reply.type === 'reflected';
  return {
    paidCalls: spend.paidCalls + (reply.type === 'reflected' ? 0 : reply.paidCalls),
    reflectionCalls: spend.reflectionCalls + (reflection ? 1 : 0),
    reflectionCostUsd: spend.reflectionCostUsd + (reflection ? reply.costUsd : 0),
    costUsd: spend.costUsd + reply.costUsd,
  };
}

/** `p<step>-<task>` for a reflective proposal, `merge-<step>` for a merge. */
export type ProposalId = `p${number}-${number}` | `merge-${number}`;

export interface Proposal {
  id: ProposalId;
  /** Step number (batched) or proposal number (async). */
  step: number;
  task: number;
  kind: 'reflective' | 'merge';
  parents: number[];
  /** Pool size when the parent was drawn (staleness is measured from it). */
  poolSizeAtStart: number;
  /** What the ledger granted it before it started (its worst case, and a rebase's extra calls): the most it may spend, and what its end settles. */
  reservation: Reservation;
  outcome?: MinibatchOutcome;
  child?: Candidate;
  decision?: SelectionDecision;
  /** A valset evaluation was granted (its verdict was accepted and selected). */
  granted: boolean;
  /**
   * Set when its stale child's edit was rebased onto a newer candidate (then `parents` is that
   * candidate and this is the parent the proposal started from).
   */
  rebasedFrom?: number;
  /** With `rebasedFrom`: how many minibatch examples the rebase gate judged the rebased child on. */
  rebaseGateExamples?: number;
  /**
   * Async with `perParent` N > 1: the proposal number of its group's first proposal, whose parent
   * evaluation (paid once, by that proposal) this one reflects on; absent on the first.
   */
  siblingOf?: number;
  /** With maxCandidateLength, when a text of its reflection was over the limit: what the rule did. */
  tooLong?: ProposalRecord['tooLong'];
  /**
   * Async, `rebaseWait: 'valsets-in-flight'`: the proposals whose valset evaluations were in
   * flight when its child passed its gate; its rebase is decided once they have all finished.
   */
  waitingFor?: ProposalId[];
  /**
   * With `spendLastCalls`: the calls of its valset evaluation its reservation does not hold yet
   * (it started on the budget's last calls with its minibatch evaluations paid); a grant waits
   * until they are reserved (search/lastCalls.ts).
   */
  valsetOwed?: number;
  /** With `valsetOwed`: its child was selected and waits for the budget to pay its valset evaluation. */
  valsetHeld?: boolean;
  /** Async, `schedule.speculate: 'rebase-gate'`: the hashes of the rebased children whose gates its proposer was told to evaluate ahead (search/gatePrefetch.ts). */
  gatePrefetched?: string[];
  valset?: ValsetScores;
  /** Why its valset evaluation was stopped early (a lost valset race): then it has no valset scores. */
  valsetStop?: string;
  /** Present once the proposal has finished. */
  spend?: ProposalSpend;
}

/**
 * `{ ...p, ...change }`: the same keys in the same order, made by Object.assign. On Node 20's V8 an
 * object spread followed by keys the spread object lacks takes a slow path, ~0.5-2.5 us a copy
 * against ~0.15 for this (measured alone), and a record gains keys (its verdict, its
 * decision, its end) several times in its life.
 */
export const changedProposal = (p: Proposal, change: Partial<Proposal>): Proposal => Object.assign({}, p, change);

/** The outcome of a proposal that ended without a verdict (an evaluation failed or was refused). */
export const UNFINISHED_OUTCOME_REASON = 'an evaluation could not be completed';

export function outcomeOf(p: Pick<Proposal, 'task' | 'outcome'>): MinibatchOutcome {
  return p.outcome ?? { task: p.task, status: 'skipped', reason: UNFINISHED_OUTCOME_REASON };
}

/** The child passed its minibatch gate. */
export function isAccepted(outcome: MinibatchOutcome | undefined): outcome is Extract<MinibatchOutcome, { status: 'judged' }> {
  return outcome?.status === 'judged' && outcome.verdict.accepted;
}
