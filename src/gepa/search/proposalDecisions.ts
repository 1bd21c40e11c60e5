// The optimizer's side of a proposal's verdict: record what a proposer reported, and decide which
// children waiting on their minibatch verdict get a valset evaluation. Proposals are decided in
// groups: a batched step's proposals together (selection may compare them), an async proposal
// alone. A lone proposal whose parent moved on may first be sent to rebase its edit
// (staleChild.ts). With selection 'all' an accepted child new to the pool is granted at once; the
// group is decided when every member has its verdict, and each accepted child still waiting is
// answered.
import { mayStartValsetEarly, selectProposals } from '../strategies/proposalSelection.js';
import { poolLookup, type CandidatePool } from '../core/candidatePool.js';
import { changedProposal, isAccepted, UNFINISHED_OUTCOME_REASON, type MinibatchOutcome, type Proposal, type ProposalId, type ProposalSpend } from '../core/proposal.js';
import { planStaleChild, type RebasePolicy } from './staleChild.js';
import type { Candidate } from '../core/adapter.js';
import type { ProposalSelection, RebaseWait } from '../../settingValues.js';

/** What a proposer waiting on its accepted child is told: a valset grant, a denial, or to rebase first. */
export type ChildAnswer =
  | { id: string; answer: 'grant' }
  | { id: string; answer: 'deny' }
  | { id: string; answer: 'rebase'; onto: number; child: Candidate; childHash: string };

export function recordVerdict(p: Proposal, outcome: MinibatchOutcome, child: Candidate | undefined): Proposal {
  return changedProposal(p, { outcome, child });
}

/** The proposer's last report: what it spent, its last verdict (if it reached one), its valset scores. */
export function recordFinish(p: Proposal, report: { spend: ProposalSpend } & Pick<Proposal, 'outcome' | 'child' | 'valset' | 'valsetStop' | 'rebaseGateExamples' | 'tooLong'>): Proposal {
  const outcome = report.outcome ?? p.outcome ?? { task: p.task, status: 'skipped' as const, reason: UNFINISHED_OUTCOME_REASON };
  // Set in this order (a record's keys keep the order they were first set in).
  const change: Partial<Proposal> = { outcome, child: report.child ?? p.child, valset: report.valset };
  if (report.valsetStop) change.valsetStop = report.valsetStop;
  if (report.rebaseGateExamples !== undefined) change.rebaseGateExamples = report.rebaseGateExamples;
  if (report.tooLong !== undefined) change.tooLong = report.tooLong;
  change.spend = report.spend;
  return changedProposal(p, change);
}

const waitingOnVerdict = (p: Proposal) => isAccepted(p.outcome) && !p.granted && p.decision === undefined && p.spend === undefined;

/**
 * Other proposals ahead of this one: children on the valset now (granted, not finished), about to
 * join the pool; with 'ahead-in-flight' also children being judged again after a rebase; with
 * 'launched-before' every proposal launched earlier.
 */
function aheadInFlight(proposals: Readonly<Record<string, Proposal>>, self: Proposal, wait: RebaseWait): ProposalId[] {
  return Object.values(proposals)
    .filter((q) => q.id !== self.id && q.spend === undefined && isAhead(q, self, wait))
    .map((q) => q.id);
}

/** Whether `q` is ahead of `self` (see aheadInFlight). */
function isAhead(q: Proposal, self: Proposal, wait: RebaseWait): boolean {
  return (
    q.granted === true ||
    (wait !== 'valsets-in-flight' && q.rebasedFrom !== undefined && q.decision === undefined) ||
    (wait === 'launched-before' && q.step < self.step)
  );
}

/** A group's proposals as the table holds them now. */
function membersOf(group: readonly string[], proposals: Readonly<Record<string, Proposal>>): Proposal[] {
  return group.map((id) => proposals[id] as Proposal);
}

/**
 * With `rebaseWait` other than 'none', whether a lone child that passed its gate waits before its
 * rebase is decided, and for whom: the proposals ahead of it when it was first judged (never work
 * that started later, so a wait always ends). Children made together often make different edits;
 * waiting lets a later one be rebased onto an earlier one instead of joining beside it as a
 * sibling, each paying a valset evaluation, or fail its rebase gate when it holds the same edit.
 * With 'launched-before' children are decided in launch order, as the sequential loop decides
 * them, while their evaluations and reflections still overlap (measured in bench/README.md).
 */
function holdFor(proposals: Readonly<Record<string, Proposal>>, lone: Proposal, wait: RebaseWait): ProposalId[] | undefined {
  if (wait === 'none') return undefined;
  const waitingFor = lone.waitingFor ?? aheadInFlight(proposals, lone, wait);
  return waitingFor.some((id) => proposals[id] !== undefined && proposals[id].spend === undefined) ? waitingFor : undefined;
}

/** Whether `p` is a child held by `rebaseWait`: it passed its gate and waits, idle, for proposals ahead of it. */
export const isHeld = (p: Proposal): boolean => p.waitingFor !== undefined && waitingOnVerdict(p) && p.rebasedFrom === undefined;

/** Ids of the proposals held by `rebaseWait` whose wait is over: they can be decided now. */
export function releasedFromWait(proposals: Readonly<Record<string, Proposal>>): ProposalId[] {
  // A loop, not Object.values over the dictionary-mode table: this runs at every proposal's end.
  const released: ProposalId[] = [];
  for (const key in proposals) {
    const p = proposals[key] as Proposal;
    if (isHeld(p) && !(p.waitingFor as ProposalId[]).some((id) => proposals[id] !== undefined && proposals[id].spend === undefined)) released.push(p.id);
  }
  return released;
}

/**
 * Decides what can be decided in `group` (ids in task order) in `proposals`, the run's table,
 * changed in place (and returned), with the answers to send. `rebase` applies to a lone proposal
 * (a group of one, the async schedule). `changed`, when given, is a record not yet in the table
 * (the report just received), set in it first.
 */
export function decideGroup(
  proposals: Record<string, Proposal>,
  group: readonly string[],
  mode: ProposalSelection,
  pool: CandidatePool,
  rebase: RebasePolicy = 'off',
  wait: RebaseWait = 'none',
  changed?: Proposal,
): { proposals: Record<string, Proposal>; answers: ChildAnswer[] } {
  if (changed) proposals[changed.id] = changed;
  const answers: ChildAnswer[] = [];
  const inPool = poolLookup(pool);
  const lone = group.length === 1 ? proposals[group[0] as string] : undefined;
  if (lone && rebase !== 'off' && lone.rebasedFrom === undefined && lone.child && waitingOnVerdict(lone)) {
    const waitingFor = holdFor(proposals, lone, wait);
    if (waitingFor !== undefined) {
      proposals[lone.id] = changedProposal(lone, { waitingFor });
      return { proposals, answers: [] };
    }
    const plan = planStaleChild(pool, lone, lone.child, rebase);
    if (plan.kind === 'rebase') {
      proposals[lone.id] = changedProposal(lone, { rebasedFrom: lone.parents[0], parents: [plan.onto] });
      return { proposals, answers: [{ id: lone.id, answer: 'rebase', onto: plan.onto, child: plan.child, childHash: plan.childHash }] };
    }
    if (plan.kind === 'contained') {
      proposals[lone.id] = changedProposal(lone, { decision: { task: lone.task, selected: false, reason: plan.reason } });
      return { proposals, answers: [{ id: lone.id, answer: 'deny' }] };
    }
  }
  for (const p of membersOf(group, proposals)) {
    if (waitingOnVerdict(p) && mayStartValsetEarly(mode, p.outcome as MinibatchOutcome, inPool)) {
      proposals[p.id] = { ...p, granted: true };
      answers.push({ id: p.id, answer: 'grant' });
    }
  }
  const step = membersOf(group, proposals);
  if (!step.every((q) => q.outcome !== undefined) || step.every((q) => q.decision !== undefined)) return { proposals, answers };
  const decisions = selectProposals(step.map((q) => q.outcome as MinibatchOutcome), mode, inPool);
  step.forEach((q, i) => {
    const decision = decisions[i] as NonNullable<Proposal['decision']>;
    const awaiting = isAccepted(q.outcome) && !q.granted && q.spend === undefined;
    if (awaiting) answers.push({ id: q.id, answer: decision.selected ? 'grant' : 'deny' });
    proposals[q.id] = changedProposal(q, { decision, granted: q.granted || (awaiting && decision.selected) });
  });
  return { proposals, answers };
}
