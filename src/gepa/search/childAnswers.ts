// What the optimizer tells proposers after one of them reported: which group the proposal is
// decided in (its batched step, or itself when async), with which selection and rebase policy,
// and the message for each child that can be answered now: a valset grant (with its valset race,
// if racing), a denial, or a rebase onto a newer candidate, whose extra calls are reserved first.
import { enlarge, reserve, type BudgetLedger, type Reserved, type SpendingLimits } from '../../budget/budgetLedger.js';
import { valsetRaceFor, type ValsetRace } from '../strategies/valsetPolicy.js';
import type { CandidatePool } from '../core/candidatePool.js';
import { rebaseExtraCalls } from './proposalPlanner.js';
import { decideGroup, type ChildAnswer } from './proposalDecisions.js';
import { payForGrants } from './lastCalls.js';
import { isAccepted, type Proposal } from '../core/proposal.js';
import type { Candidate } from '../core/adapter.js';
import type { ProposalSelection, RebaseGate, RebasePolicy, RebaseWait, ValsetPolicy } from '../../settingValues.js';

export interface AnswerSettings {
  proposalSelection: ProposalSelection;
  valsetPolicy: ValsetPolicy;
  minibatchSize: number;
  schedule: { kind: 'batched' } | { kind: 'async'; rebase: RebasePolicy; rebaseWait: RebaseWait; rebaseGate: RebaseGate };
  /** Proposals may start on the budget's last calls with their valset evaluation owed (lastCalls.ts). */
  spendLastCalls?: boolean;
}

/** The state the answers are decided over. */
export interface AnswerState {
  /** The run's table of proposals in flight: the decisions change it in place. */
  proposals: Record<string, Proposal>;
  /** The record a report just changed, not yet in `proposals` (set in it first). */
  changed?: Proposal;
  /** Ids of the current batched step's proposals, in task order (empty when async). */
  stepIds: readonly string[];
  pool: CandidatePool;
  ledger: BudgetLedger;
  /** What a rebase's extra calls must leave room for besides the ledger's limit (a resumed run's held calls), as a launch must. */
  limits?: SpendingLimits;
}

/**
 * The answer an accepted child's proposer gets (the protocol's ProposerDecision). With `race`, the
 * valset is evaluated chunk by chunk and may stop early (strategies/valsetPolicy.ts).
 */
export type ChildMessage =
  | { type: 'valset.granted'; race?: ValsetRace }
  | { type: 'valset.denied' }
  | { type: 'rebase'; onto: Candidate; ontoHash: string; child: Candidate; childHash: string; gate: RebaseGate };

export interface Answers {
  proposals: Record<string, Proposal>;
  ledger: BudgetLedger;
  messages: Array<{ id: string; message: ChildMessage }>;
}

/** The group a proposal is decided in: its batched step, or itself (async). */
export const groupOf = (stepIds: readonly string[], id: string): readonly string[] => (stepIds.includes(id) ? stepIds : [id]);

/** A lone async proposal is decided as if selection were 'all': nothing shares its step. */
export const selectionFor = (stepIds: readonly string[], id: string, settings: AnswerSettings): ProposalSelection => (stepIds.includes(id) ? settings.proposalSelection : 'all');

/** Rebasing applies to lone async proposals. */
export const rebaseFor = (stepIds: readonly string[], id: string, settings: AnswerSettings): RebasePolicy => (settings.schedule.kind === 'async' && !stepIds.includes(id) ? settings.schedule.rebase : 'off');

/**
 * The offset of a proposal's valset race into the valset: its own (step and task mixed by two
 * primes), so that concurrent races start on different chunks, and the same on every run.
 */
export const raceOffset = (p: Pick<Proposal, 'step' | 'task'>): number => p.step * 31 + p.task * 17;

/**
 * Decides the group of proposal `id` after its record changed (`state.changed` carries the
 * change, or `state.proposals` holds it). A rebase is paid for when it is decided: without room for its extra calls, no rebase;
 * with it, the extra calls join the proposal's reservation.
 */
export function answerAfterReport(state: AnswerState, id: string, settings: AnswerSettings): Answers {
  const extra = rebaseExtraCalls(settings);
  // Room for a rebase's extra calls is looked for only where one may be decided: a lone proposal
  // whose child passed its gate (most proposals end skipped on their parent).
  const policy = rebaseFor(state.stepIds, id, settings);
  const rebase = policy !== 'off' && isAccepted((state.changed ?? state.proposals[id])?.outcome) && reserve(state.ledger, extra, state.limits) !== null ? policy : 'off';
  const wait = settings.schedule.kind === 'async' ? settings.schedule.rebaseWait : 'none';
  const decided = decideGroup(state.proposals, groupOf(state.stepIds, id), selectionFor(state.stepIds, id, settings), state.pool, rebase, wait, state.changed);
  let { ledger } = state;
  for (const a of decided.answers) {
    if (a.answer !== 'rebase') continue;
    const p = decided.proposals[a.id] as Proposal;
    const enlarged = enlarge(ledger, p.reservation, extra) as Reserved; // room was checked above, and a lone group has one rebase
    ledger = enlarged.ledger;
    decided.proposals[a.id] = { ...p, reservation: enlarged.reservation };
  }
  let { proposals, answers } = decided;
  if (settings.spendLastCalls === true) {
    const granted = answers.filter((a) => a.answer === 'grant').map((a) => a.id);
    const paid = payForGrants({ proposals, stepIds: state.stepIds, ledger, ...(state.limits ? { limits: state.limits } : {}) }, granted);
    ({ proposals, ledger } = paid.state);
    answers = [...answers.filter((a) => !paid.taken.includes(a.id)), ...paid.answers];
  }
  return { proposals, ledger, messages: answers.map((a) => ({ id: a.id, message: messageFor(state.pool, proposals, a, settings) })) };
}

/** The message that carries an answer to its proposer (`proposals`: the table with the decision in it). */
function messageFor(pool: CandidatePool, proposals: Readonly<Record<string, Proposal>>, a: ChildAnswer, settings: AnswerSettings): ChildMessage {
  if (a.answer === 'grant') {
    const p = proposals[a.id] as Proposal;
    const race = valsetRaceFor(settings.valsetPolicy, pool, p.parents, raceOffset(p));
    return race ? { type: 'valset.granted', race } : { type: 'valset.granted' };
  }
  if (a.answer === 'deny') return { type: 'valset.denied' };
  const gate = settings.schedule.kind === 'async' ? settings.schedule.rebaseGate : 'whole-minibatch';
  return { type: 'rebase', onto: pool.candidates[a.onto] as Candidate, ontoHash: pool.hashes[a.onto] as string, child: a.child, childHash: a.childHash, gate };
}

/** Async, rebaseWait: children whose wait just ended (releasedFromWait), decided one after another (`state.changed` is not read: their records are in the table). */
export function answerReleased(state: Omit<AnswerState, 'changed'>, released: readonly string[], settings: AnswerSettings): Answers {
  let answers: Answers = { proposals: state.proposals, ledger: state.ledger, messages: [] };
  for (const id of released) {
    const next = answerAfterReport({ ...state, proposals: answers.proposals, ledger: answers.ledger }, id, settings);
    answers = { proposals: next.proposals, ledger: next.ledger, messages: [...answers.messages, ...next.messages] };
  }
  return answers;
}
