// The run's state, held by reference. The optimizer machine's context holds one RunState for the
// whole run and changes it only in its named actions, each calling one method below: a moment of
// the run (a launch, a verdict, a proposal's end, a fold, a stop), which asks the domain
// functions of searchRun.ts and the rules behind them and keeps their answer in place. Nothing
// else writes it, and guards only read it.
//
// Why not plain data replaced by `assign` at every event, as before: each assign copied the
// context and cloned the machine's snapshot, and the rules copied the table of proposals in flight
// to hand back a new one, several times a proposal; those copies and their garbage were a large
// part of the runtime's own cost per proposal (machines/README.md, "Decisions"). What it keeps of
// plain data: `toJSON()` is the whole state as plain values, so a persisted snapshot of the machine
// (JSON of `actor.getPersistedSnapshot()`) holds it and `RunState.fromJSON` reads it back; its first
// field is `summary()`, the short view an inspector shows.
import type { SpendingLimits } from '../../budget/budgetLedger.js';
import type { Candidate } from '../core/adapter.js';
import type { OptimizeResult } from '../core/optimizeResult.js';
import type { MinibatchOutcome } from '../core/proposal.js';
import type { RunEvent } from '../core/runEvent.js';
import type { StopReason } from '../core/stopReason.js';
import { bestIndex } from '../core/candidatePool.js';
import { answerReleased, type AnswerSettings, type ChildMessage } from './childAnswers.js';
import { gatePrefetches, type GatePrefetch } from './gatePrefetch.js';
import { nextLaunches, parentAnswerId, type LaunchMoment, type LaunchStart } from './launchRules.js';
import type { LaunchShape } from './launchShape.js';
import { releasedFromWait } from './proposalDecisions.js';
import { recordsFrom } from './recordsInFlight.js';
import { rebaseExtraCalls, type Launch, type PlannerSettings } from './proposalPlanner.js';
import {
  cutShort,
  finish,
  holdoutCutShort,
  holdoutReplied,
  foldInto,
  foldSeed,
  foldStep,
  judge,
  reserveSeed,
  runResult,
  seedWritten,
  startHoldout,
  stepFinished,
  type EvaluatorCounts,
  type RunSettingsView,
  type SearchRun,
} from './searchRun.js';
import { decideStop, type StopCause, type StopRules } from './stopDecision.js';
import { judgeRun, type FailureFacts } from './failureRule.js';
import type { FrontType, TieOrder } from '../../settingValues.js';

/** A message for the proposer of proposal `id`. */
export type ProposerMessage = { id: string; message: ChildMessage | GatePrefetch };

/** The run's state as plain values (toJSON), with its summary first. */
export interface RunStateData extends SearchRun {
  summary: RunSummary;
  parentFirst: boolean;
  parentsAsked: Launch[];
}

/** What an inspector shows of the run: where it stands, in a few numbers. */
export interface RunSummary {
  /** The last step (batched) or proposal (async) number given out. */
  step: number;
  candidates: number;
  bestIndex: number;
  bestScore: number;
  /** Ids of the proposals in flight. */
  inFlight: string[];
  /** Async: proposals whose parent evaluation the optimizer asked for. */
  parentsAsked: number;
  metricCalls: { spent: number; reserved: number; max: number | null };
  spentUsd: number;
  proposalsEnded: number;
  stopReason: StopReason | null;
}

/** The run's fields are SearchRun's (declared once, there), set from `start` by the constructor. */
export interface RunState extends SearchRun {}

export class RunState {
  /**
   * Runs with the built-in proposer (async, or a batched step): the optimizer asks for each reflective proposal's
   * parent evaluation itself and spawns a proposer only when the proposal goes on, so a proposal
   * skipped on its parent (most of them once the pool is good) costs no actor. False when the
   * proposer was replaced (`provide`): a replacement gets every proposal, as its contract says.
   */
  parentFirst: boolean;
  /**
   * The launches whose parent evaluation is asked for (answered under parentAnswerId: the
   * proposal's step and task, a sibling's its group's first's): a short list (at most K, or a
   * batched step's tasks).
   */
  parentsAsked: Launch[];
  /**
   * How many records the table of proposals in flight holds, kept beside it (not part of the
   * plain values): nothingInFlight is read after every event of an async run, and even finding a
   * dictionary-mode table's first key lists them all (~0.4 us at 16). Records join only in
   * `launch` and leave only in a fold or a cut; the rules change records in place, never the keys.
   */
  #inFlight: number;

  constructor(start: SearchRun, parentFirst: boolean, parentsAsked: Launch[] = []) {
    Object.assign(this, start);
    this.parentFirst = parentFirst;
    this.parentsAsked = parentsAsked;
    this.#inFlight = Object.keys(this.proposals).length;
  }

  /** Keeps what a domain function answered: the one way the state changes. */
  private keep(update: Partial<RunStateData>): void {
    const table = this.proposals;
    Object.assign(this, update);
    if (this.proposals !== table) this.#inFlight = Object.keys(this.proposals).length;
  }

  // ---- the moments of a run, each called by one named action of the optimizer ----

  /** The seed's valset evaluation is reserved before it is asked for. */
  reserveSeed(valsetSize: number): void {
    this.keep(reserveSeed(this, valsetSize));
  }

  /** A seedless run's first candidate, written by the reflection model (searchRun.seedWritten). */
  seedWritten(component: string, reply: Parameters<typeof seedWritten>[2], limit?: number): RunEvent[] {
    const written = seedWritten(this, component, reply, limit);
    this.keep(written.update);
    return written.events;
  }

  /** The seed's evaluation folded in (searchRun.foldSeed). */
  foldSeed(settings: Parameters<typeof foldSeed>[1], reply: Parameters<typeof foldSeed>[2], moment: { elapsedMsNow: number }): RunEvent[] {
    const folded = foldSeed(this, settings, reply, moment);
    this.keep(folded.update);
    return folded.events;
  }

  /** What starts in the free places of the shape now (launchRules.ts), recorded; null when nothing is to be done. */
  launch(moment: LaunchMoment): { events: RunEvent[]; starts: LaunchStart[]; budget?: RunEvent } | null {
    const next = nextLaunches(this, this.shape, moment);
    if (!next) return null;
    this.keep(next.update);
    for (const { launch } of next.starts) {
      if (!(launch.proposal.id in this.proposals)) this.#inFlight++;
      this.proposals[launch.proposal.id] = launch.proposal;
    }
    return { events: next.events, starts: next.starts, ...(next.budget ? { budget: next.budget } : {}) };
  }

  /** A verdict recorded, and the children of its group that can be answered now; null when the proposal is not in flight. */
  judge(report: { id: string; outcome: MinibatchOutcome; child?: Candidate }, settings: AnswerSettings, limits?: SpendingLimits): ProposerMessage[] | null {
    const answered = judge(this, report, settings, limits);
    if (!answered) return null;
    const { messages, ...update } = answered;
    this.keep(update);
    return messages;
  }

  /** A proposal's end: its reservation settled, its report recorded, its group decided; null when it is not in flight. */
  finish(report: Parameters<typeof finish>[1], settings: AnswerSettings, limits?: SpendingLimits): ProposerMessage[] | null {
    const answered = finish(this, report, settings, limits);
    if (!answered) return null;
    const { messages, ...update } = answered;
    this.keep(update);
    return messages;
  }

  /** Async: a finished proposal folded into the pool the moment it finishes (nothing when it is not in flight). */
  foldOne(id: string, moment: { elapsedMsNow: number }, settings: RunSettingsView): RunEvent[] {
    const p = this.proposals[id];
    if (!p) return [];
    const folded = foldInto(this, [p], moment, settings);
    this.#inFlight--;
    this.keep(folded.update);
    return folded.events;
  }

  /** A batched step folded in task order, once it has finished. */
  foldStep(moment: { elapsedMsNow: number }, settings: RunSettingsView): RunEvent[] {
    const folded = foldStep(this, moment, settings);
    this.#inFlight = Object.keys(this.proposals).length;
    this.keep(folded.update);
    return folded.events;
  }

  /** Async, rebaseWait: the children whose wait for older proposals just ended, decided against the pool as it is now. */
  releaseHeld(settings: AnswerSettings, limits: SpendingLimits): ProposerMessage[] {
    const released = releasedFromWait(this.proposals);
    if (released.length === 0) return [];
    const { messages, ...update } = answerReleased({ proposals: this.proposals, stepIds: this.stepIds, pool: this.search.pool, ledger: this.ledger, limits }, released, settings);
    this.keep(update);
    return messages;
  }

  /** Async with speculate 'rebase-gate': the held children told to evaluate the rebase gates they may face, ahead (gatePrefetch.ts). */
  prefetchGates(settings: Pick<PlannerSettings, 'minibatchSize'> & { schedule: AnswerSettings['schedule'] & { speculate?: string } }): ProposerMessage[] {
    const { schedule } = settings;
    if (schedule.kind !== 'async' || schedule.speculate !== 'rebase-gate' || schedule.rebase === 'off') return [];
    const prefetched = gatePrefetches({ proposals: this.proposals, pool: this.search.pool, ledger: this.ledger }, { extraCalls: rebaseExtraCalls(settings), gate: schedule.rebaseGate, policy: schedule.rebase });
    if (prefetched.messages.length === 0) return [];
    this.keep({ proposals: prefetched.proposals, ledger: prefetched.ledger });
    return prefetched.messages;
  }

  /**
   * The launches whose parent evaluation `requestId` answers, in launch order, taken off the list
   * of those asked: the proposal of that number and its siblings (perParent), or none.
   */
  parentAnswered(requestId: number): Launch[] {
    const answered = this.parentsAsked.filter((l) => parentAnswerId(l.proposal) === requestId);
    if (answered.length > 0) this.keep({ parentsAsked: this.parentsAsked.filter((l) => !answered.includes(l)) });
    return answered;
  }

  /** Schedule 'auto': the shape the launch rules fill from now on (the kind stays the run's). */
  reshape(shape: LaunchShape): void {
    this.keep({ shape });
  }

  /** The stop decision told of `cause` (stopDecision.ts); `rules` are read at a fold only. */
  decideStop(cause: StopCause, rules?: StopRules): void {
    this.keep(decideStop(this, cause, rules));
  }

  /** The evaluator said the dollars left cannot pay for another call. */
  dollarsRanOut(): void {
    this.keep({ dollarsExhausted: true });
  }

  /** A stop that cuts the run short: the proposals in flight recorded as skipped and dropped; returns their ids. */
  cutShort(): string[] {
    const ids = Object.keys(this.proposals);
    this.keep(cutShort(this));
    return ids;
  }

  /** The end of the run: the holdout evaluations to ask for, one per candidate (searchRun.startHoldout). */
  startHoldout(settings: { frontType: FrontType; tieOrder: TieOrder }): ReturnType<typeof startHoldout>['asks'] {
    const planned = startHoldout(this, settings);
    this.keep(planned.update);
    return planned.asks;
  }

  /** A holdout evaluation's reply folded in; true once none is awaited. */
  holdoutReplied(at: number, reply: Parameters<typeof holdoutReplied>[2]): boolean {
    const replied = holdoutReplied(this, at, reply);
    this.keep(replied.update);
    return replied.done;
  }

  /** An abort while the holdout set was scored: the valset's choice stands. */
  holdoutCutShort(): void {
    this.keep(holdoutCutShort(this));
  }

  /** The one failure rule, asked once as the run ends (failureRule.judgeRun): the events it announces. */
  judgeRun(facts: FailureFacts): RunEvent[] {
    const judged = judgeRun(this, facts);
    this.keep(judged.update);
    return judged.events;
  }

  // ---- what guards and outputs read ----

  /** Nothing in flight: read after every event of an async run, so from the count kept beside the table. */
  nothingInFlight(): boolean {
    return this.#inFlight === 0;
  }

  /** A batched step is folded once every proposal in it has finished. */
  stepFinished(): boolean {
    return stepFinished(this);
  }

  /** The OptimizeResult of the finished run. */
  result(counts: EvaluatorCounts | undefined, at: { elapsedMs: number; workers: number }): OptimizeResult {
    return runResult(this, counts, at);
  }

  // ---- plain data ----

  summary(): RunSummary {
    const { pool } = this.search;
    const best = pool.candidates.length > 0 ? bestIndex(pool) : -1;
    return {
      step: this.search.step,
      candidates: pool.candidates.length,
      bestIndex: best,
      bestScore: best >= 0 ? (pool.valScores[best] ?? 0) : 0,
      inFlight: Object.keys(this.proposals),
      parentsAsked: this.parentsAsked.length,
      metricCalls: { spent: this.ledger.spentCalls, reserved: this.ledger.reservedCalls, max: Number.isFinite(this.ledger.maxMetricCalls) ? this.ledger.maxMetricCalls : null },
      spentUsd: this.spentUsd,
      proposalsEnded: this.progress.records.length,
      stopReason: this.stopReason ?? null,
    };
  }

  /** The whole state as plain values, its summary first (JSON of the machine's context or persisted snapshot). */
  toJSON(): RunStateData {
    const { search, shape, progress, ledger, dollarsExhausted, spentUsd, proposals, stepIds, stopReason, error, stoppedBy, seedReservation, writtenSeed, holdout, seedRetry, parentFirst, parentsAsked } = this;
    return {
      summary: this.summary(),
      search,
      shape,
      progress,
      ledger,
      dollarsExhausted,
      spentUsd,
      proposals: { ...proposals },
      stepIds,
      ...(stopReason === undefined ? {} : { stopReason }),
      ...(error === undefined ? {} : { error }),
      ...(stoppedBy === undefined ? {} : { stoppedBy }),
      ...(seedReservation === undefined ? {} : { seedReservation }),
      ...(writtenSeed === undefined ? {} : { writtenSeed }),
      ...(holdout === undefined ? {} : { holdout }),
      ...(seedRetry === undefined ? {} : { seedRetry }),
      parentFirst,
      parentsAsked,
    };
  }

  /** A state read back from its plain values (JSON.parse of toJSON's). */
  static fromJSON(data: RunStateData): RunState {
    const { summary: _summary, parentFirst, parentsAsked, ...run } = data;
    return new RunState({ ...run, proposals: recordsFrom(run.proposals) }, parentFirst, parentsAsked);
  }
}
