// The optimizer's side of a proposal's verdict: record what a proposer reported, and decide which
// children waiting on their minibatch verdict get a valset evaluation. Proposals are decided in
// groups: a batched step's proposals together (selection may compare them), an async proposal
// alone. With selection 'all' an accepted child new to the pool is granted at once; the group is
// decided when every member has its verdict, and each accepted child still waiting is answered.
import { mayStartValsetEarly, selectProposals, type PoolLookup } from '../strategies/proposalSelection.js';
import { isAccepted, UNFINISHED_OUTCOME_REASON, type MinibatchOutcome, type Proposal, type ProposalSpend } from './proposal.js';
import type { Candidate, ProposalSelection } from '../../types.js';

/** A grant (valset evaluation) or a denial for a proposer waiting on its accepted child. */
export interface ValsetAnswer {
  id: string;
  grant: boolean;
}

export function recordVerdict(p: Proposal, outcome: MinibatchOutcome, child: Candidate | undefined): Proposal {
  return { ...p, outcome, child };
}

/** The proposer's last report: what it spent, its verdict if no earlier report carried one, its valset scores. */
export function recordFinish(p: Proposal, report: { spend: ProposalSpend } & Pick<Proposal, 'outcome' | 'child' | 'valset'>): Proposal {
  const outcome = p.outcome ?? report.outcome ?? { task: p.task, status: 'skipped' as const, reason: UNFINISHED_OUTCOME_REASON };
  return { ...p, outcome, child: p.child ?? report.child, valset: report.valset, spend: report.spend };
}

/** Decides what can be decided in `group` (ids in task order) and returns the updated records and the answers to send. */
export function decideGroup(
  proposals: Readonly<Record<string, Proposal>>,
  group: readonly string[],
  mode: ProposalSelection,
  inPool: PoolLookup,
): { proposals: Record<string, Proposal>; answers: ValsetAnswer[] } {
  const next = { ...proposals };
  const answers: ValsetAnswer[] = [];
  const members = () => group.map((id) => next[id] as Proposal);
  for (const p of members()) {
    const waiting = p.outcome !== undefined && !p.granted && p.decision === undefined && p.spend === undefined;
    if (waiting && mayStartValsetEarly(mode, p.outcome as MinibatchOutcome, inPool)) {
      next[p.id] = { ...p, granted: true };
      answers.push({ id: p.id, grant: true });
    }
  }
  const step = members();
  if (!step.every((q) => q.outcome !== undefined) || step.every((q) => q.decision !== undefined)) return { proposals: next, answers };
  const decisions = selectProposals(step.map((q) => q.outcome as MinibatchOutcome), mode, inPool);
  step.forEach((q, i) => {
    const decision = decisions[i] as NonNullable<Proposal['decision']>;
    const awaiting = isAccepted(q.outcome) && !q.granted && q.spend === undefined;
    if (awaiting) answers.push({ id: q.id, grant: decision.selected });
    next[q.id] = { ...q, decision, granted: q.granted || (awaiting && decision.selected) };
  });
  return { proposals: next, answers };
}
