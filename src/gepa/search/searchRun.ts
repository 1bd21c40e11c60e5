// The optimizer's state over one run as plain data, and what each of its moments does to it:
// reserving and folding the seed's evaluation, launching a plan, settling and answering a
// proposer's reports, folding finished proposals, and when the run stops of its own accord. The
// optimizer machine holds a SearchRun in its context and assigns what these functions return.
import { openLedger, reserveRegardless, settle, type BudgetLedger, type Reservation, type SpendingLimits } from '../../budget/budgetLedger.js';
import { answerAfterReport, type AnswerSettings, type Answers } from './childAnswers.js';
import { valsetScoresOf, type MinibatchOutcome, type Proposal, type ProposalSpend } from '../core/proposal.js';
import { recordFinish, recordVerdict } from './proposalDecisions.js';
import { emptyRecords } from './recordsInFlight.js';
import { buildResult } from '../core/result.js';
import { seedFromReply } from '../proposer/seedPrompt.js';
import { shortenPrompt, textLength } from '../reflection/lengthLimit.js';
import { launchEvents, type Plan } from './proposalPlanner.js';
import { addSeed, foldFinished, recordPlanFailures, recordStopped, startProgress, type SearchProgress } from './searchProgress.js';
import { initialSearchState, type SearchSettings, type SearchState } from './searchState.js';
import { launchShapeOf, type LaunchShape } from './launchShape.js';
import { decideStop, finalStopReason, type StopRules } from './stopDecision.js';
import type { StopReason } from '../core/stopReason.js';
import type { ExampleTable } from '../core/exampleTable.js';
import type { Candidate, Evaluation } from '../core/adapter.js';
import type { FailureCounts, OptimizeResult } from '../core/optimizeResult.js';
import type { FrontType, TieOrder } from '../../settingValues.js';
import type { RunEvent } from '../core/runEvent.js';
import { foldHoldoutReply, holdHoldoutCalls, planHoldout, settleHoldout, withHoldout, type HoldoutState } from './holdoutSelection.js';

export interface SearchRun {
  search: SearchState;
  /** The schedule's shape the launch rules fill (launchRules.ts): as configured at the start; a rule that adapts it changes it here. */
  shape: LaunchShape;
  progress: SearchProgress;
  ledger: BudgetLedger;
  /** The evaluator said the dollars left cannot pay for another call (it holds the dollar gate). */
  dollarsExhausted: boolean;
  /** Dollars spent, as reported by the seed's evaluation and by finished proposals (the evaluator holds the dollar budget). */
  spentUsd: number;
  /** The record of every proposal in flight: the run's table, changed in place (recordsInFlight.ts). */
  proposals: Record<string, Proposal>;
  /** Ids of the current batched step's proposals, in task order. */
  stepIds: string[];
  /** Set by the stop decision (stopDecision.ts) once the run stops. */
  stopReason?: StopReason;
  /** With stopReason 'error': what failed (a systemic failure as the evaluator named it, the hooks, a stopper). */
  error?: string;
  /** The user's stopper that stopped the run, by name. */
  stoppedBy?: string;
  /** The seed's valset evaluation's reservation, settled when it is folded. */
  seedReservation?: Reservation;
  /** Seedless: the first candidate the reflection model wrote (the settings' seed until then is a placeholder). */
  writtenSeed?: WrittenSeed;
  /** With a holdout set: the calls held for its scoring from the start, and the scoring at the end. */
  holdout?: HoldoutState;
  /** Seedless with maxCandidateLength: the prompt that sent the written seed back for being over the limit (asked once). */
  seedRetry?: string;
}

/** The first candidate a seedless run's reflection model wrote, and what the settings derive from it. */
export interface WrittenSeed {
  seedCandidate: Candidate;
  seedHash: string;
  componentNames: string[];
}

export type RunSettingsView = AnswerSettings & StopRules & { frontType: FrontType; tieOrder: TieOrder };

/**
 * A run before its seed is evaluated: the search state from the settings, the schedule's shape,
 * an open ledger (with `spentBefore` calls already paid: an earlier process's failed calls),
 * nothing in flight.
 */
export function startRun(
  settings: SearchSettings & { schedule: LaunchShape; maxMetricCalls?: number; metricCallsPerEvaluation?: number; holdoutSize?: number },
  table: Pick<ExampleTable<unknown>, 'trainIds'>,
  spentBefore: number,
): SearchRun {
  const opened = openLedger(settings.maxMetricCalls, spentBefore, settings.metricCallsPerEvaluation);
  // The holdout's calls are held from the start: the search stops that many calls earlier.
  const held = settings.holdoutSize ? holdHoldoutCalls(opened, settings.holdoutSize) : undefined;
  return {
    search: initialSearchState(settings, table),
    shape: launchShapeOf(settings.schedule),
    progress: startProgress(),
    ledger: held?.ledger ?? opened,
    spentUsd: 0,
    dollarsExhausted: false,
    proposals: emptyRecords(),
    stepIds: [],
    ...(held ? { holdout: held.holdout } : {}),
  };
}

/** The end of the run: the holdout evaluations to ask for, one per candidate (none without a holdout, or when the stop skips it). */
export function startHoldout(run: SearchRun, settings: { frontType: FrontType; tieOrder: TieOrder }): { update: Partial<SearchRun>; asks: Array<{ candidate: Candidate; hash: string }> } {
  if (!run.holdout) return { update: {}, asks: [] };
  const planned = planHoldout(run.holdout, { pool: run.search.pool, stopReason: run.stopReason }, settings);
  return { update: { holdout: planned.holdout }, asks: planned.asks };
}

/** A holdout evaluation's reply (`evaluations` absent: it could not complete); once none is awaited, its reservation is settled. */
export function holdoutReplied(run: SearchRun, at: number, reply: { paidCalls: number; evaluations?: readonly Evaluation[] }): { update: Partial<SearchRun>; done: boolean } {
  if (!run.holdout) return { update: {}, done: true };
  const folded = foldHoldoutReply(run.holdout, at, reply);
  return { update: { holdout: folded.holdout, ...(folded.done ? { ledger: settleHoldout(run.ledger, folded.holdout) } : {}) }, done: folded.done };
}

/** The holdout's scoring cut short (an abort while it ran): the valset's choice stands. */
export const holdoutCutShort = (run: SearchRun): Partial<SearchRun> => (run.holdout ? { holdout: { ...run.holdout, pending: 0, skipped: 'the run was aborted while the holdout set was scored' } } : {});

/** The run's budget as a run event. */
export const budgetEvent = (run: Pick<SearchRun, 'ledger' | 'spentUsd'>): RunEvent => ({ type: 'budget.updated', metricCalls: run.ledger.spentCalls, reserved: run.ledger.reservedCalls, costUsd: run.spentUsd });

/** A batched step is folded once every proposal in it has finished. */
export const stepFinished = (run: Pick<SearchRun, 'stepIds' | 'proposals'>): boolean => run.stepIds.every((id) => run.proposals[id]?.spend !== undefined);

/** The seed's valset evaluation is reserved before it is asked for (the run cannot do without it). */
export function reserveSeed(run: Pick<SearchRun, 'ledger'>, valsetSize: number): Pick<SearchRun, 'ledger' | 'seedReservation'> {
  const { ledger, reservation } = reserveRegardless(run.ledger, valsetSize);
  return { ledger, seedReservation: reservation };
}

/**
 * The seed's evaluation folded in: its reservation settled, candidate 0 in the pool, its dollars
 * spent; every seed call failing stops the run with 'error', else the stop decision's first fold
 * is asked. Events: the budget, then the front.
 */
export function foldSeed(
  run: SearchRun,
  settings: { seedCandidate: Candidate; seedHash: string; frontType: FrontType; tieOrder: TieOrder } & StopRules,
  reply: { evaluations: readonly Evaluation[]; paidCalls: number; costUsd: number; systemic?: string },
  moment: { elapsedMsNow: number },
): { update: Partial<SearchRun>; events: RunEvent[] } {
  if (!run.seedReservation) throw new Error('the seed was folded before it was reserved');
  const ledger = settle(run.ledger, run.seedReservation, reply.paidCalls);
  const added = addSeed(run.search, run.progress, { candidate: settings.seedCandidate, hash: settings.seedHash, valset: valsetScoresOf(reply.evaluations) }, ledger.spentCalls, settings);
  const spentUsd = run.spentUsd + reply.costUsd;
  const folded = { ...run, ledger, search: added.search, progress: added.progress, spentUsd };
  const stop = reply.systemic === undefined
    ? decideStop(folded, { kind: 'fold', elapsedMs: moment.elapsedMsNow }, settings)
    : decideStop(folded, { kind: 'seed', error: reply.systemic, refusedByDollars: false });
  return { update: { ledger, search: added.search, progress: added.progress, spentUsd, ...stop }, events: [budgetEvent({ ledger, spentUsd }), ...added.events] };
}

/**
 * A seedless run's first candidate, written by the reflection model: its dollars spent, and the
 * seed read from the reply (which the settings' placeholder then gives way to), announced; a failed
 * call or a reply with no text is the stop decision's ('error'), and the placeholder is evaluated
 * so that the result still has a candidate 0. With maxCandidateLength (`limit`), a seed over it is
 * sent back once (`seedRetry`: the optimizer asks again); still over it, the run stops with 'error'
 * before the seed is evaluated.
 */
export function seedWritten(
  run: SearchRun,
  component: string,
  reply: { ok: true; reply: { text: string }; costUsd: number } | { ok: false; error: string; costUsd: number },
  limit?: number,
): { update: Partial<SearchRun>; events: RunEvent[] } {
  const spentUsd = run.spentUsd + reply.costUsd;
  const read = reply.ok ? seedFromReply(reply.reply.text, component) : { error: `the reflection model could not write the seed candidate: ${reply.error}` };
  if ('error' in read) return { update: { spentUsd, ...decideStop(run, { kind: 'seed', error: read.error, refusedByDollars: false }) }, events: [] };
  const text = read.seedCandidate[component] ?? '';
  if (limit !== undefined && textLength(text) > limit) {
    if (run.seedRetry === undefined) return { update: { spentUsd, seedRetry: shortenPrompt(component, text, limit) }, events: [] };
    const error = `the seed candidate the reflection model wrote is over maxCandidateLength (${limit} characters): ${textLength(text)} characters after one retry`;
    return { update: { spentUsd, ...decideStop(run, { kind: 'seed', error, refusedByDollars: false }) }, events: [] };
  }
  return { update: { spentUsd, writtenSeed: { ...read, componentNames: Object.keys(read.seedCandidate) } }, events: [{ type: 'seed.written', candidate: read.seedCandidate }] };
}

/**
 * What launching a plan does to the run: its search state and ledger (the launches'
 * reservations), its failures recorded, its stop reason; the launches' records are the caller's to
 * add to the table in flight (runState.ts). Events: a batched step's start, the failures, the
 * launches; the caller spawns the proposers, then emits the budget.
 */
export function launchPlan(run: SearchRun, plan: Plan, batched: boolean): { update: Partial<SearchRun>; events: RunEvent[] } {
  const failed = recordPlanFailures(run.progress, plan.failures);
  const stepStarted: RunEvent[] = batched && plan.launches.length > 0 ? [{ type: 'step.started', step: plan.search.step, tasks: plan.launches.length }] : [];
  return {
    update: {
      search: plan.search,
      ledger: plan.ledger,
      progress: failed.progress,
      ...(batched ? { stepIds: plan.launches.map((l) => l.proposal.id) } : {}),
      ...(plan.stopReason === undefined ? {} : decideStop(run, { kind: 'plan', reason: plan.stopReason, error: plan.error })),
    },
    events: [...stepStarted, ...failed.events, ...launchEvents(plan.launches)],
  };
}

/** A verdict: recorded, and whichever children of its group can be answered now, answered (the table changes in place). */
export function judge(run: SearchRun, report: { id: string; outcome: MinibatchOutcome; child?: Candidate }, settings: AnswerSettings, limits?: SpendingLimits): Answers | null {
  const p = run.proposals[report.id];
  if (!p) return null;
  const changed = recordVerdict(p, report.outcome, report.child);
  return answerAfterReport({ proposals: run.proposals, changed, stepIds: run.stepIds, pool: run.search.pool, ledger: run.ledger, ...(limits ? { limits } : {}) }, p.id, settings);
}

/** A proposal's end: its reservation settled with what it paid, its report recorded, its group decided (the table changes in place). */
export function finish(run: SearchRun, report: Parameters<typeof recordFinish>[1] & { id: string; spend: ProposalSpend }, settings: AnswerSettings, limits?: SpendingLimits): Answers | null {
  const p = run.proposals[report.id];
  if (!p) return null;
  const ledger = settle(run.ledger, p.reservation, report.spend.paidCalls);
  const changed = recordFinish(p, report);
  return answerAfterReport({ proposals: run.proposals, changed, stepIds: run.stepIds, pool: run.search.pool, ledger, ...(limits ? { limits } : {}) }, p.id, settings);
}

/**
 * Finished proposals folded in, in the order given: the pool, the progress and the records; their
 * dollars added; their records out of the table (in place); the stop decision asked (once per
 * fold). Events: the fold's, then the budget.
 */
export function foldInto(run: SearchRun, finished: readonly Proposal[], moment: { elapsedMsNow: number }, settings: RunSettingsView): { update: Partial<SearchRun>; events: RunEvent[] } {
  const folded = foldFinished(run.search, run.progress, finished, { metricCallsNow: run.ledger.spentCalls, elapsedMsNow: moment.elapsedMsNow, frontType: settings.frontType, tieOrder: settings.tieOrder });
  for (const p of finished) delete run.proposals[p.id];
  const spentUsd = run.spentUsd + finished.reduce((n, p) => n + (p.spend?.costUsd ?? 0), 0);
  // What the decision reads, not a copy of the whole run (it is asked at every fold).
  const viewed = { search: folded.search, progress: folded.progress, ledger: run.ledger, spentUsd, stopReason: run.stopReason, error: run.error, stoppedBy: run.stoppedBy };
  const stop = decideStop(viewed, { kind: 'fold', elapsedMs: moment.elapsedMsNow }, settings);
  return { update: { search: folded.search, progress: folded.progress, spentUsd, ...stop }, events: [...folded.events, budgetEvent({ ledger: run.ledger, spentUsd })] };
}

/** A batched step folded in task order, once it has finished (stepFinished); nothing of it stays in flight. */
export function foldStep(run: SearchRun, moment: { elapsedMsNow: number }, settings: RunSettingsView): { update: Partial<SearchRun>; events: RunEvent[] } {
  const folded = foldInto(run, run.stepIds.map((id) => run.proposals[id] as Proposal), moment, settings);
  return { update: { ...folded.update, stepIds: [] }, events: folded.events };
}

/** A stop that cuts the run short: the proposals in flight are recorded as skipped, with its reason, and dropped. */
export function cutShort(run: SearchRun): Pick<SearchRun, 'progress' | 'proposals' | 'stepIds'> {
  return { progress: recordStopped(run.progress, Object.values(run.proposals), run.stopReason), proposals: emptyRecords(), stepIds: [] };
}

/** What the evaluator counted over the whole run (its counts win over the run's own: they include every call). */
export interface EvaluatorCounts {
  metricCalls: number;
  reflectionCalls: number;
  costUsd: number;
  busySlotMs: number;
  failures?: FailureCounts;
}

/** The OptimizeResult of a finished run. */
export function runResult(run: SearchRun, counts: EvaluatorCounts | undefined, at: { elapsedMs: number; workers: number }): OptimizeResult {
  const result = buildResult({
    pool: run.search.pool,
    metricCalls: counts?.metricCalls ?? run.ledger.spentCalls,
    reflectionCalls: counts?.reflectionCalls ?? run.progress.reflectionCalls,
    costUsd: counts?.costUsd ?? run.spentUsd,
    stopReason: finalStopReason(run),
    proposals: run.progress.records,
    elapsedMs: at.elapsedMs,
    busySlotMs: counts?.busySlotMs ?? 0,
    workers: at.workers,
    failures: counts?.failures,
    error: run.error,
    ...(run.stoppedBy !== undefined && run.stopReason !== 'error' ? { stoppedBy: run.stoppedBy } : {}),
  });
  return withHoldout(result, run.holdout);
}
