// The optimizer: owns the run. It is the only writer of the search state (pool, RNG, sampler),
// the budget ledger and the proposals' records; it evaluates the seed, asks the domain what to
// start (a P x N step at a time, or K always in flight), spawns one proposer per proposal, answers
// each accepted child with a valset grant or a denial, folds finished proposals into the pool
// through the domain, and stops on a budget, a stop condition, the timeout or the caller's signal.
// Its output is the OptimizeResult. Every GEPA rule it applies lives in src/gepa/.
import { assign, emit, enqueueActions, sendTo, setup, type CallbackActorLogic } from 'xstate';
import { heldCalls } from '../src/budget/heldCalls.js';
import { prepareRun, type PreparedRun, type RunSettings } from '../src/run/preparedRun.js';
import { answerReleased } from '../src/gepa/search/childAnswers.js';
import type { ProposalId } from '../src/gepa/core/proposal.js';
import { releasedFromWait } from '../src/gepa/search/proposalDecisions.js';
import { occupiedSlots } from '../src/gepa/search/heldSlots.js';
import { gatePrefetches } from '../src/gepa/search/gatePrefetch.js';
import { rebaseExtraCalls } from '../src/gepa/search/proposalPlanner.js';
import { planAsyncProposals, planBatchedStep, type Launch, type Plan, type PlanInput } from '../src/gepa/search/proposalPlanner.js';
import { budgetEvent, cutShort, finish, foldInto, foldSeed, foldStep, judge, launchPlan, reserveSeed, runResult, startRun, stepFinished, type SearchRun } from '../src/gepa/search/searchRun.js';
import { decideStop, finalStopReason } from '../src/gepa/search/stopDecision.js';
import { outOfTurn, recordDecision, type ResumeOrderView } from '../src/storage/resumeOrder.js';
import type { OptimizeConfig, OptimizeResult, RunEvent, StopReason } from '../src/types.js';
import { evaluatorActor } from './evaluator.actor.js';
import type { DollarsExhausted, EvaluatorReply, EvaluatorRequest, EvaluatorStats, ProposerDecision, ProposalUpdate } from './protocol.js';
import { proposerMachine, type ProposerInput } from './proposer.machine.js';
import { evaluatorInput, stopSignalsInput } from './runInputs.js';
import { stopSignals } from './stopSignals.actor.js';

export interface OptimizerContext extends SearchRun {
  input: PreparedRun;
  settings: RunSettings;
  /** Aborts every call in flight when the run stops early. */
  abort: AbortController;
  /** Async resume: proposers' updates that came before their turn on the logged path. */
  deferred: ProposalUpdate[];
  startedAt: number;
  stats?: EvaluatorStats;
}

export type OptimizerEvent =
  | EvaluatorReply
  | ProposalUpdate
  | EvaluatorStats
  | DollarsExhausted
  /** graceful: start nothing new and let what is in flight finish; else stop now. */
  | { type: 'stop'; reason: StopReason; graceful?: boolean; error?: string };

type OptimizerChildren = { evaluator: 'evaluator' } & { [proposal: ProposalId]: 'proposer' };

const SEED_REQUEST = -1;

/** Typed as the contract a replacement proposer meets (`provide`): it takes ProposerInput and answers; its snapshot is never read. */
const proposerActor = proposerMachine as unknown as CallbackActorLogic<ProposerDecision, ProposerInput>;

const inFlightCount = (context: OptimizerContext): number => Object.keys(context.proposals).length;

const elapsedMs = (context: OptimizerContext): number => context.input.clock.now() - context.startedAt;

const isAsync = (context: OptimizerContext): boolean => context.settings.schedule.kind === 'async';

/** What resuming in the logged order needs of the context. */
const resumeView = (context: OptimizerContext): ResumeOrderView => ({ journal: context.input.journal, async: isAsync(context), inFlight: context.proposals });

function planInput(context: OptimizerContext): PlanInput {
  const { search, settings, input, ledger, dollarsExhausted } = context;
  const inFlightParents = Object.values(context.proposals).map((p) => p.parents[0] as number);
  return { search, settings, table: input.table, budget: { ledger, heldCalls: heldCalls(input.journal, isAsync(context)), dollarsExhausted }, inFlightParents };
}

function proposerInput(context: OptimizerContext, launch: Launch): ProposerInput {
  const { settings, input, search } = context;
  const { proposal } = launch;
  return {
    id: proposal.id,
    step: proposal.step,
    task: proposal.task,
    parent: search.pool.candidates[launch.parent] as NonNullable<ProposerInput['parent']>,
    parentHash: search.pool.hashes[launch.parent] as string,
    minibatch: launch.minibatch,
    valIds: input.table.valIds,
    components: launch.components,
    examples: input.table.examples,
    acceptance: settings.acceptance,
    skipPerfectScore: settings.skipPerfectScore,
    perfectScore: settings.perfectScore,
    buildDataset: input.buildDataset,
    reflection: input.reflection,
    onEvent: input.onEvent,
    ...(launch.merge ? { merge: launch.merge } : {}),
  };
}

/** The context for a run: the config prepared once (a PreparedRun is taken as it is), the search not yet seeded. */
function initialContext(config: OptimizeConfig<unknown> | PreparedRun): OptimizerContext {
  const input = prepareRun(config);
  return {
    input,
    settings: input.settings,
    // An earlier process's failed calls were paid and will be paid again: they count from the start.
    ...startRun(input.settings, input.table, input.journal?.failedCalls?.() ?? 0),
    abort: new AbortController(),
    deferred: [],
    startedAt: input.clock.now(),
  };
}

export const optimizerMachine = setup({
  types: {
    context: {} as OptimizerContext,
    events: {} as OptimizerEvent,
    input: {} as OptimizeConfig<unknown> | PreparedRun,
    output: {} as OptimizeResult,
    emitted: {} as RunEvent,
    /** The evaluator by its id; proposers by their proposal ids (`p<step>-<task>`, `merge-<step>`). */
    children: {} as OptimizerChildren,
  },
  actors: {
    evaluator: evaluatorActor,
    proposer: proposerActor,
    stopSignals,
  },
  guards: {
    isAsync: ({ context }) => isAsync(context),
    stepFinished: ({ context }) => stepFinished(context),
    idle: ({ context }) => inFlightCount(context) === 0,
    hasStopReason: ({ context }) => context.stopReason !== undefined,
    outOfTurn: ({ context, event }) => (event.type === 'proposal.judged' || event.type === 'proposal.finished') && outOfTurn(resumeView(context), event.id),
  },
  actions: {
    /** Async resume: keep an update until its turn on the logged path. */
    defer: assign({ deferred: ({ context, event }) => (event.type === 'proposal.judged' || event.type === 'proposal.finished' ? [...context.deferred, event] : context.deferred) }),
    /** After a decision, the waiting updates are looked at again (one of them may be next). */
    releaseDeferred: enqueueActions(({ context, enqueue }) => {
      if (context.deferred.length === 0) return;
      enqueue.assign({ deferred: [] });
      for (const update of context.deferred) enqueue.raise(update);
    }),
    /** A verdict: record it and answer whichever children of its group can be answered now. */
    judge: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'proposal.judged') return;
      // null: not in flight (a late update from a proposal the run already let go).
      const answered = judge(context, event, context.settings);
      if (!answered) return;
      recordDecision(resumeView(context), 'judged', event.id);
      const { messages, ...update } = answered;
      enqueue.assign(update);
      for (const m of messages) enqueue.sendTo(m.id, m.message);
    }),
    /** A proposal's end: settle its reservation, record its update, stop its proposer, decide its group. */
    finish: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'proposal.finished') return;
      const answered = finish(context, event, context.settings);
      if (!answered) return;
      recordDecision(resumeView(context), 'finished', event.id);
      const { messages, ...update } = answered;
      enqueue.assign(update);
      for (const m of messages) enqueue.sendTo(m.id, m.message);
      // A finished proposer stays among the children until stopped; thousands would slow every step.
      enqueue.stopChild(event.id);
    }),
    /** Async: a finished proposal joins the pool the moment it finishes. */
    foldOne: enqueueActions(({ context, event, enqueue }) => {
      const p = event.type === 'proposal.finished' ? context.proposals[event.id] : undefined;
      if (!p) return;
      const folded = foldInto(context, [p], { elapsedMsNow: elapsedMs(context) }, context.settings);
      enqueue.assign(folded.update);
      for (const e of folded.events) enqueue.emit(e);
    }),
    /** Async, rebaseWait: children that waited for the valset evaluations just folded are decided now, against the pool with them in it. */
    releaseHeld: enqueueActions(({ context, enqueue }) => {
      const released = releasedFromWait(context.proposals);
      if (released.length === 0) return;
      const { messages, ...update } = answerReleased({ ...context, pool: context.search.pool }, released, context.settings);
      for (const m of messages) enqueue.sendTo(m.id, m.message);
      enqueue.assign(update);
    }),
    /** Async, speculate 'rebase-gate': held children waiting on one valset evaluation evaluate their possible rebase gates ahead. */
    prefetchGates: enqueueActions(({ context, enqueue }) => {
      const { schedule } = context.settings;
      if (schedule.kind !== 'async' || schedule.speculate !== 'rebase-gate' || schedule.rebase === 'off') return;
      const prefetched = gatePrefetches({ proposals: context.proposals, pool: context.search.pool, ledger: context.ledger }, { extraCalls: rebaseExtraCalls(context.settings), gate: schedule.rebaseGate, policy: schedule.rebase });
      if (prefetched.messages.length === 0) return;
      enqueue.assign({ proposals: prefetched.proposals, ledger: prefetched.ledger });
      for (const m of prefetched.messages) enqueue.sendTo(m.id, m.message);
    }),
    /** Start what the planner plans: a batched step, or async proposals until K are in flight or the budget refuses another. */
    launch: enqueueActions(({ context, enqueue }, params?: { afterVerdict: true }) => {
      const { schedule } = context.settings;
      if (context.stopReason !== undefined) return;
      // After a verdict only with heldSlot 'free': a child the verdict held in its wait gives its place to a new proposal.
      if (params?.afterVerdict && !(schedule.kind === 'async' && schedule.heldSlot === 'free')) return;
      const plan: Plan =
        schedule.kind === 'batched' ? planBatchedStep(planInput(context), schedule) : planAsyncProposals(planInput(context), occupiedSlots(context.proposals, schedule.inFlight, schedule.heldSlot), schedule.inFlight);
      const launched = launchPlan(context, plan, schedule.kind === 'batched');
      enqueue.assign(launched.update);
      for (const e of launched.events) enqueue.emit(e);
      if (plan.launches.length === 0) return;
      for (const l of plan.launches) enqueue.spawnChild('proposer', { id: l.proposal.id, input: proposerInput(context, l) });
      enqueue.emit(budgetEvent({ ledger: plan.ledger, spentUsd: context.spentUsd }));
    }),
  },
}).createMachine({
  id: 'optimizer',
  context: ({ input }) => initialContext(input),
  invoke: [
    { id: 'evaluator', systemId: 'evaluator', src: 'evaluator', input: ({ context }) => evaluatorInput(context.input, context.abort.signal) },
    { src: 'stopSignals', input: ({ context }) => stopSignalsInput(context.input) },
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
  initial: 'seeding',
  states: {
    seeding: {
      entry: [
        assign(({ context }) => reserveSeed(context, context.input.table.valIds.length)),
        emit(({ context }): RunEvent => ({ type: 'run.started', workers: context.settings.workers, valsetSize: context.input.table.valIds.length })),
        sendTo('evaluator', ({ context, self }): EvaluatorRequest => ({
          type: 'evaluate',
          requestId: SEED_REQUEST,
          replyTo: self,
          candidate: context.settings.seedCandidate,
          hash: context.settings.seedHash,
          exampleIds: context.input.table.valIds,
          captureTraces: false,
          kind: 'seed',
        })),
      ],
      on: {
        // The first fold: foldSeed asks the stop decision (every seed call failed: 'error'), which 'deciding' follows.
        evaluated: {
          target: 'deciding',
          actions: enqueueActions(({ context, event, enqueue }) => {
            const folded = foldSeed(context, context.settings, event, { elapsedMsNow: elapsedMs(context) });
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
          const folded = foldStep(context, { elapsedMsNow: elapsedMs(context) }, context.settings);
          enqueue.assign(folded.update);
          for (const e of folded.events) enqueue.emit(e);
        }),
      },
    },
    // Async schedule: K proposals always in flight; each is folded the moment it finishes.
    flowing: {
      entry: 'launch',
      on: {
        'proposal.judged': [{ guard: 'outOfTurn', actions: 'defer' }, { actions: ['judge', { type: 'launch', params: { afterVerdict: true } }, 'prefetchGates', 'releaseDeferred'] }],
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
        'proposal.judged': [{ guard: 'outOfTurn', actions: 'defer' }, { actions: ['judge', 'prefetchGates', 'releaseDeferred'] }],
        'proposal.finished': [{ guard: 'outOfTurn', actions: 'defer' }, { actions: ['finish', 'foldOne', 'releaseHeld', 'prefetchGates', 'releaseDeferred'] }],
      },
      always: { guard: 'idle', target: 'finishing' },
    },
    // Stop now: abort every call in flight and stop the proposers; their work is not folded.
    stopping: {
      entry: enqueueActions(({ context, enqueue }) => {
        context.abort.abort(new Error(`run stopped: ${context.stopReason}`));
        for (const id of Object.keys(context.proposals)) enqueue.stopChild(id);
        enqueue.assign(cutShort(context));
      }),
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
  output: ({ context }) => runResult(context, context.stats, { elapsedMs: elapsedMs(context), workers: context.settings.workers }),
});
