// The optimizer: owns the run. It is the only writer of the search state (pool, RNG, sampler),
// the budget ledger and the proposals' records; it evaluates the seed, asks the domain what to
// start (a P x N step at a time, or K always in flight), spawns one proposer per proposal (async:
// per proposal its parent's evaluation, which it asks for itself, lets go on), answers
// each accepted child with a valset grant or a denial, folds finished proposals into the pool
// through the domain, and stops on a budget, a stop condition, the timeout or the caller's signal.
// Its output is the OptimizeResult; its context is plain data, its wiring in the 'run' actor
// (runWiring.ts). Every GEPA rule it applies lives in src/gepa/.
import { assign, emit, enqueueActions, sendTo, setup, type CallbackActorLogic } from 'xstate';
import { heldCalls } from '../src/budget/heldCalls.js';
import { answerReleased } from '../src/gepa/search/childAnswers.js';
import { memberOf } from '../src/gepa/core/candidatePool.js';
import { addSpend, NOTHING_SPENT, type ProposalId } from '../src/gepa/core/proposal.js';
import { evaluationAsk } from '../src/gepa/proposer/evaluationPlan.js';
import { afterParentEvaluation } from '../src/gepa/proposer/proposalSkips.js';
import { releasedFromWait } from '../src/gepa/search/proposalDecisions.js';
import { heldSlotOfRun, occupiedSlots } from '../src/gepa/search/heldSlots.js';
import { gatePrefetches } from '../src/gepa/search/gatePrefetch.js';
import { planAsyncProposals, planBatchedStep, rebaseExtraCalls, type Launch, type Plan, type PlanInput } from '../src/gepa/search/proposalPlanner.js';
import { budgetEvent, cutShort, finish, foldInto, foldSeed, foldStep, judge, launchPlan, reserveSeed, runResult, seedWritten, startRun, stepFinished, type SearchRun } from '../src/gepa/search/searchRun.js';
import { decideStop, finalStopReason } from '../src/gepa/search/stopDecision.js';
import { outOfTurn, resumeWalk, startResume, takeDecision, type LoggedDecision, type ResumePosition } from '../src/storage/resumeOrder.js';
import type { OptimizeResult, RunEvent, StopReason } from '../src/types.js';
import { evaluatorActor } from './evaluator.actor.js';
import type { DollarsExhausted, EvaluatorReply, EvaluatorRequest, EvaluatorStats, ProposerDecision, ProposalUpdate, ReplyTo } from './protocol.js';
import { proposerMachine, type ProposerInput } from './proposer.machine.js';
import { evaluatorInput, stopSignalsInput } from './runInputs.js';
import { stopSignals } from './stopSignals.actor.js';
import { preparedOf, preparedOnly, runWiringActor, settingsOf, wiringOf, type OptimizerInput, type RunWiringRef } from './runWiring.js';

export interface OptimizerContext extends SearchRun {
  /** The actor holding the run's wiring (`RunWiring`): a reference, so the context stays plain data (JSON gives its id). */
  wiring: RunWiringRef;
  /** Async schedule: how far the run has walked the path its journal logged (undefined: batched). */
  resume?: ResumePosition;
  /** Async resume: proposers' updates that came before their turn on the logged path. */
  deferred: ProposalUpdate[];
  startedAt: number;
  stats?: EvaluatorStats;
  /**
   * Async runs with the built-in proposer: the optimizer asks for each reflective proposal's
   * parent evaluation itself and spawns a proposer only when the proposal goes on, so a proposal
   * skipped on its parent (most of them once the pool is good) costs no actor. False when the
   * proposer was replaced (`provide`): a replacement gets every proposal, as its contract says.
   */
  parentFirst: boolean;
  /**
   * The launches whose parent evaluation is asked for (the request id is the proposal's step): a
   * short list (at most K), cheaper to copy than a table keyed by ids never seen before.
   */
  parentsAsked: Launch[];
}

export type OptimizerEvent =
  | EvaluatorReply
  | ProposalUpdate
  | EvaluatorStats
  | DollarsExhausted
  /** graceful: start nothing new and let what is in flight finish; else stop now. */
  | { type: 'stop'; reason: StopReason; graceful?: boolean; error?: string };

type OptimizerChildren = { evaluator: 'evaluator'; run: 'run' } & { [proposal: ProposalId]: 'proposer' };

const SEED_REQUEST = -1;

/** Typed as the contract a replacement proposer meets (`provide`): it takes ProposerInput and answers; its snapshot is never read. */
const proposerActor = proposerMachine as unknown as CallbackActorLogic<ProposerDecision, ProposerInput>;

const inFlightCount = (context: OptimizerContext): number => Object.keys(context.proposals).length;

const elapsedMs = (context: OptimizerContext): number => preparedOf(context).clock.now() - context.startedAt;

const isAsync = (context: OptimizerContext): boolean => settingsOf(context).schedule.kind === 'async';

const isUpdate = (event: OptimizerEvent): event is ProposalUpdate => event.type === 'proposal.judged' || event.type === 'proposal.finished';

/** Room a resumed run keeps for logged work (RunJournal.heldWork): launches and rebases alike leave it. */
const spendingLimits = (context: OptimizerContext) => ({ heldCalls: heldCalls(preparedOf(context).journal, resumeWalk(context.resume)) });

function planInput(context: OptimizerContext): PlanInput {
  const { search, ledger, dollarsExhausted } = context;
  const { table } = preparedOf(context);
  const settings = settingsOf(context);
  // Each proposal's first parent, in the table's order (a loop: the table is a dictionary-mode
  // object, slow to list with Object.values, and this runs at every launch).
  const inFlightParents: number[] = [];
  for (const id in context.proposals) {
    const first = context.proposals[id]?.parents[0];
    if (first !== undefined) inFlightParents.push(first);
  }
  return { search, settings, table, budget: { ledger, ...spendingLimits(context), dollarsExhausted }, inFlightParents };
}

function proposerInput(context: OptimizerContext, launch: Launch): ProposerInput {
  const { settings, table, buildDataset, reflection, onEvent } = preparedOf(context);
  const { proposal } = launch;
  const parent = memberOf(context.search.pool, launch.parent);
  return {
    id: proposal.id,
    step: proposal.step,
    task: proposal.task,
    parent: parent.candidate,
    parentHash: parent.hash,
    minibatch: launch.minibatch,
    valIds: table.valIds,
    components: launch.components,
    examples: table.examples,
    acceptance: settings.acceptance,
    skipPerfectScore: settings.skipPerfectScore,
    perfectScore: settings.perfectScore,
    buildDataset,
    reflection,
    onEvent,
    ...(launch.merge ? { merge: launch.merge } : {}),
  };
}

/** The proposer the run spawns is the built-in one (not replaced with `provide`): read off the actor's machine (`Actor.logic`, `StateMachine.implementations`, both public). */
function builtInProposer(self: unknown): boolean {
  const logic = (self as { logic?: { implementations?: { actors?: Record<string, unknown> } } }).logic;
  return logic?.implementations?.actors?.proposer === proposerActor;
}

/** A launch whose parent evaluation the optimizer asks for: the run event a proposer would tell, and the request. */
function askParent(launch: Launch, input: ProposerInput, self: ReplyTo<EvaluatorReply>): { started: RunEvent; request: EvaluatorRequest } {
  const origin = { step: input.step, task: input.task };
  return {
    started: { type: 'evaluation.started', target: 'parent', ...origin },
    // The proposal's step is its request id: async proposals each have their own step.
    request: { type: 'evaluate', replyTo: self, ...evaluationAsk('parent', input), requestId: launch.proposal.step, origin },
  };
}

/** The run's state before the seed is evaluated, all plain data: the search from the settings, the walk of the logged path at its start. */
function initialContext(wiring: OptimizerContext['wiring'], parentFirst: boolean): OptimizerContext {
  const snapshot = wiring.getSnapshot();
  // The input could not be prepared (a ConfigError): the run fails as it is made.
  if (snapshot.status === 'error') throw snapshot.error;
  const { settings, table, journal, clock } = snapshot.context.prepared;
  return {
    wiring,
    // An earlier process's failed calls were paid and will be paid again: they count from the start.
    ...startRun(settings, table, journal?.failedCalls?.() ?? 0),
    resume: startResume(journal?.loggedPath?.(), settings.schedule.kind === 'async'),
    deferred: [],
    startedAt: clock.now(),
    parentFirst: parentFirst && settings.schedule.kind === 'async',
    parentsAsked: [],
  };
}

const optimizerSetup = setup({
  types: {
    context: {} as OptimizerContext,
    events: {} as OptimizerEvent,
    input: {} as OptimizerInput,
    output: {} as OptimizeResult,
    emitted: {} as RunEvent,
    /** The evaluator by its id; proposers by their proposal ids (`p<step>-<task>`, `merge-<step>`). */
    children: {} as OptimizerChildren,
  },
  actors: {
    evaluator: evaluatorActor,
    proposer: proposerActor,
    stopSignals,
    run: runWiringActor(preparedOnly),
  },
  guards: {
    isAsync: ({ context }) => isAsync(context),
    seedless: ({ context }) => preparedOf(context).seedless !== undefined,
    stepFinished: ({ context }) => stepFinished(context),
    idle: ({ context }) => inFlightCount(context) === 0,
    hasStopReason: ({ context }) => context.stopReason !== undefined,
    /** A read of the run's state: the walk of the logged path is in the context, not in the journal. */
    outOfTurn: ({ context, event }) => isUpdate(event) && outOfTurn(context.resume, context.proposals, event.id),
  },
  actions: {
    /** Async resume: keep an update until its turn on the logged path. */
    defer: assign({ deferred: ({ context, event }) => (isUpdate(event) ? [...context.deferred, event] : context.deferred) }),
    /** The one write to the log of decisions: a decision taken off the logged path (takeDecision said so). */
    logDecision: ({ context }, decision: LoggedDecision) => preparedOf(context).journal?.recordDecision?.(decision),
    /** Stop now: every call in flight is aborted through the run's signal. */
    abortCalls: ({ context }) => wiringOf(context).abort.abort(new Error(`run stopped: ${context.stopReason}`)),
  },
});

export const optimizerMachine = optimizerSetup.extend({
  // Actions that enqueue the named ones above (extend types them against those).
  actions: {
    /** After a decision, the waiting updates are looked at again (one of them may be next). */
    releaseDeferred: optimizerSetup.enqueueActions(({ context, enqueue }) => {
      if (context.deferred.length === 0) return;
      enqueue.assign({ deferred: [] });
      for (const update of context.deferred) enqueue.raise(update);
    }),
    /** A verdict: record it and answer whichever children of its group can be answered now. */
    judge: optimizerSetup.enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'proposal.judged') return;
      // null: not in flight (a late update from a proposal the run already let go).
      const answered = judge(context, event, settingsOf(context), spendingLimits(context));
      if (!answered) return;
      // The walk of the logged path one further; off the path, the decision is logged (logDecision).
      const taken = takeDecision(context.resume, { kind: 'judged', id: event.id });
      const { messages, ...update } = answered;
      enqueue.assign({ ...update, resume: taken.resume });
      if (taken.logged) enqueue({ type: 'logDecision', params: taken.logged });
      for (const m of messages) enqueue.sendTo(m.id, m.message);
    }),
    /** A proposal's end: settle its reservation, record its update, stop its proposer, decide its group. */
    finish: optimizerSetup.enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'proposal.finished') return;
      const answered = finish(context, event, settingsOf(context), spendingLimits(context));
      if (!answered) return;
      const taken = takeDecision(context.resume, { kind: 'finished', id: event.id });
      const { messages, ...update } = answered;
      enqueue.assign({ ...update, resume: taken.resume });
      if (taken.logged) enqueue({ type: 'logDecision', params: taken.logged });
      for (const m of messages) enqueue.sendTo(m.id, m.message);
      // A finished proposer stays among the children until stopped; thousands would slow every step.
      enqueue.stopChild(event.id);
    }),
    /** Async: a finished proposal joins the pool the moment it finishes. */
    foldOne: optimizerSetup.enqueueActions(({ context, event, enqueue }) => {
      const p = event.type === 'proposal.finished' ? context.proposals[event.id] : undefined;
      if (!p) return;
      const folded = foldInto(context, [p], { elapsedMsNow: elapsedMs(context) }, settingsOf(context));
      enqueue.assign(folded.update);
      for (const e of folded.events) enqueue.emit(e);
    }),
    /** Async, rebaseWait: children that waited for the valset evaluations just folded are decided now, against the pool with them in it. */
    releaseHeld: optimizerSetup.enqueueActions(({ context, enqueue }) => {
      const released = releasedFromWait(context.proposals);
      if (released.length === 0) return;
      const { messages, ...update } = answerReleased({ ...context, pool: context.search.pool, limits: spendingLimits(context) }, released, settingsOf(context));
      for (const m of messages) enqueue.sendTo(m.id, m.message);
      enqueue.assign(update);
    }),
    /** Async, speculate 'rebase-gate': held children waiting on one valset evaluation evaluate their possible rebase gates ahead. */
    prefetchGates: optimizerSetup.enqueueActions(({ context, enqueue }) => {
      const settings = settingsOf(context);
      const { schedule } = settings;
      if (schedule.kind !== 'async' || schedule.speculate !== 'rebase-gate' || schedule.rebase === 'off') return;
      const prefetched = gatePrefetches({ proposals: context.proposals, pool: context.search.pool, ledger: context.ledger }, { extraCalls: rebaseExtraCalls(settings), gate: schedule.rebaseGate, policy: schedule.rebase });
      if (prefetched.messages.length === 0) return;
      enqueue.assign({ proposals: prefetched.proposals, ledger: prefetched.ledger });
      for (const m of prefetched.messages) enqueue.sendTo(m.id, m.message);
    }),
    /** Start what the planner plans: a batched step, or async proposals until K are in flight or the budget refuses another. */
    launch: optimizerSetup.enqueueActions(({ context, event, enqueue, self }) => {
      const settings = settingsOf(context);
      const { schedule } = settings;
      if (context.stopReason !== undefined) return;
      const heldSlot = schedule.kind === 'async' ? heldSlotOfRun(context, schedule, settings, preparedOf(context).table.valIds.length) : 'keep';
      // After a verdict only while held children free their places: a child the verdict held in its wait gives its place to a new proposal.
      if (event.type === 'proposal.judged' && heldSlot !== 'free') return;
      const plan: Plan =
        schedule.kind === 'batched' ? planBatchedStep(planInput(context), schedule) : planAsyncProposals(planInput(context), occupiedSlots(context.proposals, schedule.inFlight, heldSlot), schedule.inFlight);
      const launched = launchPlan(context, plan, schedule.kind === 'batched');
      enqueue.assign(launched.update);
      for (const e of launched.events) enqueue.emit(e);
      if (plan.launches.length === 0) return;
      const asked: Launch[] = [];
      for (const l of plan.launches) {
        if (!context.parentFirst || l.merge) {
          enqueue.spawnChild('proposer', { id: l.proposal.id, input: proposerInput(context, l) });
          continue;
        }
        // Where the proposer would have started (its start is deferred like these sends): its
        // run event, then its request.
        const { started, request } = askParent(l, proposerInput(context, l), self);
        enqueue.emit(started);
        enqueue.sendTo('evaluator', request);
        asked.push(l);
      }
      if (asked.length > 0) enqueue.assign({ parentsAsked: [...context.parentsAsked, ...asked] });
      enqueue.emit(budgetEvent({ ledger: plan.ledger, spentUsd: context.spentUsd }));
    }),
    /**
     * A parent evaluation the optimizer asked for: skipped on it (or failed), the proposal ends
     * here as a proposer would have ended it (its 'proposal.finished', raised); else its proposer
     * is spawned with the evaluation (ProposerInput.parentEvaluated).
     */
    parentEvaluated: optimizerSetup.enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'evaluated' && event.type !== 'evaluator.failed') return;
      const launch = context.parentsAsked.find((l) => l.proposal.step === event.requestId);
      if (!launch) return;
      enqueue.assign({ parentsAsked: context.parentsAsked.filter((l) => l !== launch) });
      const input = proposerInput(context, launch);
      const { id, step, task } = launch.proposal;
      const spend = addSpend(NOTHING_SPENT, event);
      // The run events a proposer would have told its listener are the optimizer's here: emitted
      // (optimize() hands both to onEvent), in the order the proposer's would have come.
      if (event.type === 'evaluator.failed') {
        enqueue.emit({ type: 'error', message: `task ${step}/${task}: ${event.error}` });
        enqueue.raise({ type: 'proposal.finished', id, spend, outcome: undefined, child: undefined, valset: undefined });
        return;
      }
      const next = afterParentEvaluation(event.evaluations, input);
      if (next.kind === 'skip') {
        enqueue.emit({ type: 'evaluation.skipped', reason: next.reason, scores: event.evaluations.map((e) => e.score), step, task });
        enqueue.raise({ type: 'proposal.finished', id, spend, outcome: { task, status: 'skipped', reason: next.reason }, child: undefined, valset: undefined });
        return;
      }
      enqueue.spawnChild('proposer', { id, input: { ...input, parentEvaluated: { evaluations: event.evaluations, spend } } });
    }),
  },
}).createMachine({
  id: 'optimizer',
  context: ({ input, spawn, self }) => initialContext(spawn('run', { id: 'run', input }), builtInProposer(self)),
  invoke: [
    {
      id: 'evaluator',
      systemId: 'evaluator',
      src: 'evaluator',
      // The dollar gate holds logged work back once the run is past its logged path: it reads the optimizer's state.
      input: ({ context, self }) => evaluatorInput(preparedOf(context), wiringOf(context).abort.signal, () => resumeWalk(self.getSnapshot().context.resume)),
    },
    { src: 'stopSignals', input: ({ context }) => stopSignalsInput(preparedOf(context)) },
  ],
  on: {
    // The stop decision takes a drain's reason unless one is set, and an abort's in any case.
    stop: [
      { guard: ({ event }) => event.graceful === true, actions: assign(({ context, event }) => decideStop(context, { kind: 'request', reason: event.reason, graceful: true })) },
      {
        target: '.stopping',
        actions: assign(({ context, event }) => decideStop(context, { kind: 'request', reason: event.reason, graceful: false, error: event.error })),
      },
    ],
    'dollars.exhausted': { actions: assign({ dollarsExhausted: true }) },
  },
  initial: 'starting',
  states: {
    starting: {
      always: [{ guard: 'seedless', target: 'writingSeed' }, { target: 'seeding' }],
    },
    // Seedless: the reflection model writes the first candidate (a reflection call like any other:
    // counted, paid, logged; a resumed run replays it from its log instead of asking again).
    writingSeed: {
      entry: sendTo('evaluator', ({ context, self }): EvaluatorRequest => ({ type: 'reflect', requestId: SEED_REQUEST, replyTo: self, prompt: preparedOf(context).seedless?.prompt ?? '' })),
      on: {
        // No seed written (the call failed, no text): the run stops with 'error' after evaluating
        // the placeholder, so that its result still has a candidate 0.
        reflected: {
          target: 'seeding',
          actions: enqueueActions(({ context, event, enqueue }) => {
            const written = seedWritten(context, preparedOf(context).seedless?.component ?? '', event);
            enqueue.assign(written.update);
            for (const e of written.events) enqueue.emit(e);
          }),
        },
        'evaluator.failed': {
          target: 'stopping',
          actions: assign(({ context, event }) => decideStop(context, { kind: 'seed', error: event.error, refusedByDollars: context.dollarsExhausted })),
        },
      },
    },
    seeding: {
      entry: [
        assign(({ context }) => reserveSeed(context, preparedOf(context).table.valIds.length)),
        emit(({ context }): RunEvent => ({ type: 'run.started', workers: settingsOf(context).workers, valsetSize: preparedOf(context).table.valIds.length })),
        sendTo('evaluator', ({ context, self }): EvaluatorRequest => ({
          type: 'evaluate',
          requestId: SEED_REQUEST,
          replyTo: self,
          candidate: settingsOf(context).seedCandidate,
          hash: settingsOf(context).seedHash,
          exampleIds: preparedOf(context).table.valIds,
          captureTraces: false,
          kind: 'seed',
        })),
      ],
      on: {
        // The first fold: foldSeed asks the stop decision (every seed call failed: 'error'), which 'deciding' follows.
        evaluated: {
          target: 'deciding',
          actions: enqueueActions(({ context, event, enqueue }) => {
            const folded = foldSeed(context, settingsOf(context), event, { elapsedMsNow: elapsedMs(context) });
            enqueue.assign(folded.update);
            for (const e of folded.events) enqueue.emit(e);
          }),
        },
        // A seed call the dollar budget could not pay even with nothing else in flight: the budget ends the run.
        'evaluator.failed': {
          target: 'stopping',
          actions: assign(({ context, event }) => decideStop(context, { kind: 'seed', error: event.error, refusedByDollars: context.dollarsExhausted })),
        },
      },
    },
    // The fold just made asked the stop decision; this follows its answer.
    deciding: {
      always: [{ guard: 'hasStopReason', target: 'draining' }, { guard: 'isAsync', target: 'flowing' }, { target: 'planning' }],
    },
    // Batched schedule: plan a P x N step (or a merge), run it, fold it in task order.
    planning: {
      entry: 'launch',
      always: [{ guard: 'hasStopReason', target: 'finishing' }, { target: 'stepping' }],
    },
    stepping: {
      on: {
        'proposal.judged': { actions: 'judge' },
        'proposal.finished': { actions: 'finish' },
      },
      always: {
        guard: 'stepFinished',
        target: 'deciding',
        actions: enqueueActions(({ context, enqueue }) => {
          const folded = foldStep(context, { elapsedMsNow: elapsedMs(context) }, settingsOf(context));
          enqueue.assign(folded.update);
          for (const e of folded.events) enqueue.emit(e);
        }),
      },
    },
    // Async schedule: K proposals always in flight; each is folded the moment it finishes.
    flowing: {
      entry: 'launch',
      on: {
        evaluated: { actions: 'parentEvaluated' },
        'evaluator.failed': { actions: 'parentEvaluated' },
        'proposal.judged': [{ guard: 'outOfTurn', actions: 'defer' }, { actions: ['judge', 'launch', 'prefetchGates', 'releaseDeferred'] }],
        'proposal.finished': [{ guard: 'outOfTurn', actions: 'defer' }, { actions: ['finish', 'foldOne', 'releaseHeld', 'prefetchGates', 'launch', 'releaseDeferred'] }],
      },
      always: [
        { guard: 'hasStopReason', target: 'draining' },
        { guard: 'idle', target: 'finishing', actions: assign(({ context }) => decideStop(context, { kind: 'idle' })) },
      ],
    },
    // Nothing new starts; proposals in flight finish and are folded.
    draining: {
      on: {
        evaluated: { actions: 'parentEvaluated' },
        'evaluator.failed': { actions: 'parentEvaluated' },
        'proposal.judged': [{ guard: 'outOfTurn', actions: 'defer' }, { actions: ['judge', 'prefetchGates', 'releaseDeferred'] }],
        'proposal.finished': [{ guard: 'outOfTurn', actions: 'defer' }, { actions: ['finish', 'foldOne', 'releaseHeld', 'prefetchGates', 'releaseDeferred'] }],
      },
      always: { guard: 'idle', target: 'finishing' },
    },
    // Stop now: abort every call in flight and stop the proposers; their work is not folded.
    stopping: {
      entry: [
        'abortCalls',
        enqueueActions(({ context, enqueue }) => {
          for (const id of Object.keys(context.proposals)) enqueue.stopChild(id);
          enqueue.assign(cutShort(context));
        }),
      ],
      on: { stop: {} },
      always: 'finishing',
    },
    finishing: {
      entry: sendTo('evaluator', ({ self }): EvaluatorRequest => ({ type: 'stats', replyTo: self })),
      on: {
        // Too late to stop: the result is being assembled.
        stop: {},
        'evaluator.stats': {
          target: 'done',
          actions: [assign({ stats: ({ event }) => event }), emit(({ context }): RunEvent => ({ type: 'run.ended', stopReason: finalStopReason(context) }))],
        },
      },
    },
    done: { type: 'final' },
  },
  output: ({ context }) => runResult(context, context.stats, { elapsedMs: elapsedMs(context), workers: settingsOf(context).workers }),
});
