// The optimizer: owns the run. It is the only writer of the search state (pool, RNG, sampler),
// the budget ledger and the proposals' records; it evaluates the seed, asks the domain what to
// start (a P x N step at a time, or K always in flight), spawns one proposer per proposal, answers
// each accepted child with a valset grant or a denial, folds finished proposals into the pool
// through the domain, and stops on a budget, a stop condition, the timeout or the caller's signal.
// Its output is the OptimizeResult. Every GEPA rule it applies lives in src/gepa/.
import { assign, emit, enqueueActions, sendTo, setup, type AnyActorRef } from 'xstate';
import { BudgetLedger } from '../src/budget/budgetLedger.js';
import { prepareRun, type PreparedRun, type RunSettings } from '../src/run/preparedRun.js';
import { emptyPool } from '../src/gepa/core/candidatePool.js';
import { valsetScoresOf, type Proposal, type ProposalId } from '../src/gepa/core/proposal.js';
import { decideGroup, recordFinish, recordVerdict, releasedFromWait, type ValsetAnswer } from '../src/gepa/core/proposalDecisions.js';
import { buildResult } from '../src/gepa/core/result.js';
import { Rng } from '../src/gepa/core/rng.js';
import { addSeed, foldFinished, progressStop, recordPlanFailures, recordStopped, startProgress, type SearchProgress, type SearchUpdate } from '../src/gepa/core/searchProgress.js';
import { launchEvents, newSearchState, rebaseExtraCalls, planAsyncProposals, planBatchedStep, type Launch, type Plan, type PlanInput, type SearchState } from '../src/gepa/core/stepPlanner.js';
import { EpochShuffledSampler } from '../src/gepa/strategies/minibatchSampler.js';
import { valsetRaceFor } from '../src/gepa/strategies/valsetPolicy.js';
import type { Candidate, OptimizeConfig, OptimizeResult, RunEvent } from '../src/types.js';
import { evaluatorActor } from './evaluator.actor.js';
import { heldCalls, outOfTurn, recordDecision, type LoggedPathView } from './loggedPath.js';
import type { DollarsExhausted, EvaluatorReply, EvaluatorRequest, EvaluatorStats, ProposerDecision, ProposerReport } from './protocol.js';
import { proposerMachine, type ProposerInput } from './proposer.machine.js';
import { stopSignals } from './stopSignals.actor.js';

export interface OptimizerContext {
  input: PreparedRun;
  settings: RunSettings;
  search: SearchState;
  progress: SearchProgress;
  ledger: BudgetLedger;
  /** Dollars spent, as reported by the seed's evaluation and by finished proposals (the evaluator holds the dollar budget). */
  spentUsd: number;
  /** The evaluator said the dollars left cannot pay for another call. */
  dollarsExhausted: boolean;
  /** Aborts every call in flight when the run stops early. */
  abort: AbortController;
  /** The record of every proposal in flight. */
  proposals: Record<string, Proposal>;
  /** Ids of the current batched step's proposals, in task order. */
  stepIds: string[];
  stopReason?: string;
  /** With stopReason 'error': the systemic failure's cause, as the evaluator named it. */
  error?: string;
  /** Async resume: proposers' reports that came before their turn on the logged path. */
  deferred: ProposerReport[];
  startedAt: number;
  stats?: EvaluatorStats;
}

export type OptimizerEvent =
  | EvaluatorReply
  | ProposerReport
  | EvaluatorStats
  | DollarsExhausted
  /** graceful: start nothing new and let what is in flight finish; else stop now. */
  | { type: 'stop'; reason: string; graceful?: boolean; error?: string };

type OptimizerChildren = { evaluator: 'evaluator' } & { [proposal: ProposalId]: 'proposer' };

const SEED_REQUEST = -1;

const inFlightCount = (context: OptimizerContext): number => Object.keys(context.proposals).length;

/** What the logged path (async resume) needs of the context. */
const pathView = (context: OptimizerContext): LoggedPathView => ({ journal: context.input.journal, async: context.settings.schedule.kind === 'async', inFlight: context.proposals });

function planInput(context: OptimizerContext): PlanInput {
  const { search, settings, input, ledger, dollarsExhausted } = context;
  const inFlightParents = Object.values(context.proposals).map((p) => p.parents[0] as number);
  return { search, settings, table: input.table, remainingCalls: ledger.remainingCalls() - heldCalls(pathView(context)), dollarsExhausted, inFlightParents };
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

/**
 * What starting a plan takes: each launch's worst case reserved in the ledger (here, at once), the
 * records and the search state to assign, the events to emit and the proposers to spawn.
 */
function start(context: OptimizerContext, plan: Plan) {
  for (const l of plan.launches) context.ledger.reserve(l.proposal.worstCaseCalls);
  const launched = Object.fromEntries(plan.launches.map((l) => [l.proposal.id, l.proposal]));
  const failed = recordPlanFailures(context.progress, plan.failures);
  return {
    update: { search: plan.search, progress: failed.progress, proposals: { ...context.proposals, ...launched }, ...(plan.stopReason ? { stopReason: plan.stopReason } : {}), ...(plan.error ? { error: plan.error } : {}) } satisfies Partial<OptimizerContext>,
    events: [...failed.events, ...launchEvents(plan.launches)],
    spawns: plan.launches.map((l) => ({ id: l.proposal.id, input: proposerInput(context, l) })),
  };
}

function budgetEvent(context: OptimizerContext): RunEvent {
  const { ledger } = context;
  return { type: 'budget.updated', metricCalls: ledger.spentCalls, reserved: ledger.reservedCalls, costUsd: context.spentUsd };
}

/** The group a proposal is decided in: its batched step, or itself (async). */
const groupOf = (context: OptimizerContext, id: string): string[] => (context.stepIds.includes(id) ? context.stepIds : [id]);

/** A lone async proposal is decided as if selection were 'all': nothing shares its step. */
const selectionFor = (context: OptimizerContext, id: string) => (context.stepIds.includes(id) ? context.settings.proposalSelection : 'all');

/** Rebasing applies to lone async proposals. */
const rebaseFor = (context: OptimizerContext, id: string) => (context.settings.schedule.kind === 'async' && !context.stepIds.includes(id) ? context.settings.schedule.rebase : 'off');

/** The message that carries an answer to its proposer. */
function answerMessage(context: OptimizerContext, a: ValsetAnswer): ProposerDecision {
  if (a.answer === 'grant') {
    const p = context.proposals[a.id] as Proposal;
    const race = valsetRaceFor(context.settings.valsetPolicy, context.search.pool, p.parents, p.step * 31 + p.task * 17);
    return race ? { type: 'valset.granted', race } : { type: 'valset.granted' };
  }
  if (a.answer === 'deny') return { type: 'valset.denied' };
  const { pool } = context.search;
  const gate = context.settings.schedule.kind === 'async' ? context.settings.schedule.rebaseGate : 'whole-minibatch';
  return { type: 'rebase', onto: pool.candidates[a.onto] as Candidate, ontoHash: pool.hashes[a.onto] as string, child: a.child, childHash: a.childHash, gate };
}

/** Decides the group of proposal `id` after its record changed, and the messages to send. */
function decide(context: OptimizerContext, proposals: Record<string, Proposal>, id: string) {
  // A rebase is paid for when it is decided: without room for its extra calls, no rebase.
  const extra = rebaseExtraCalls(context.settings);
  const rebase = context.ledger.canAfford(extra) ? rebaseFor(context, id) : 'off';
  const wait = context.settings.schedule.kind === 'async' ? context.settings.schedule.rebaseWait : 'none';
  const decided = decideGroup(proposals, groupOf(context, id), selectionFor(context, id), context.search.pool, rebase, wait);
  for (const a of decided.answers) {
    if (a.answer !== 'rebase') continue;
    context.ledger.reserve(extra);
    const p = decided.proposals[a.id] as Proposal;
    decided.proposals[a.id] = { ...p, worstCaseCalls: p.worstCaseCalls + extra };
  }
  return { proposals: decided.proposals, messages: decided.answers.map((a) => ({ id: a.id, message: answerMessage(context, a) })) };
}

function fold(context: OptimizerContext, finished: Proposal[]): SearchUpdate & { proposals: Record<string, Proposal>; spentUsd: number } {
  const update = foldFinished(context.search, context.progress, finished, {
    metricCallsNow: context.ledger.spentCalls,
    elapsedMsNow: context.input.clock.now() - context.startedAt,
    frontType: context.settings.frontType,
    tieOrder: context.settings.tieOrder,
  });
  const proposals = { ...context.proposals };
  for (const p of finished) delete proposals[p.id];
  return { ...update, proposals, spentUsd: context.spentUsd + finished.reduce((n, p) => n + (p.spend?.costUsd ?? 0), 0) };
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
    proposer: proposerMachine,
    stopSignals,
  },
  guards: {
    isAsync: ({ context }) => context.settings.schedule.kind === 'async',
    stepFinished: ({ context }) => context.stepIds.every((id) => context.proposals[id]?.spend !== undefined),
    idle: ({ context }) => inFlightCount(context) === 0,
    hasStopReason: ({ context }) => context.stopReason !== undefined,
    outOfTurn: ({ context, event }) => (event.type === 'proposal.judged' || event.type === 'proposal.finished') && outOfTurn(pathView(context), event.id),
  },
  actions: {
    /** Async resume: keep a report until its turn on the logged path. */
    defer: assign({ deferred: ({ context, event }) => (event.type === 'proposal.judged' || event.type === 'proposal.finished' ? [...context.deferred, event] : context.deferred) }),
    /** After a decision, the waiting reports are looked at again (one of them may be next). */
    releaseDeferred: enqueueActions(({ context, enqueue }) => {
      if (context.deferred.length === 0) return;
      enqueue.assign({ deferred: [] });
      for (const report of context.deferred) enqueue.raise(report);
    }),
    reportBudget: emit(({ context }) => budgetEvent(context)),
    /** A verdict: record it and answer whichever children of its group can be answered now. */
    judge: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'proposal.judged' || !context.proposals[event.id]) return;
      recordDecision(pathView(context), 'judged', event.id);
      const recorded = { ...context.proposals, [event.id]: recordVerdict(context.proposals[event.id] as Proposal, event.outcome, event.child) };
      const { proposals, messages } = decide(context, recorded, event.id);
      enqueue.assign({ proposals });
      for (const m of messages) enqueue.sendTo(m.id, m.message);
    }),
    /** A proposal's end: settle its reservation, record its report, stop its proposer, decide its group. */
    finish: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'proposal.finished') return;
      const p = context.proposals[event.id];
      if (!p) return;
      recordDecision(pathView(context), 'finished', p.id);
      context.ledger.settle({ calls: p.worstCaseCalls }, event.spend.paidCalls);
      const recorded = { ...context.proposals, [p.id]: recordFinish(p, event) };
      const { proposals, messages } = decide(context, recorded, p.id);
      enqueue.assign({ proposals });
      for (const m of messages) enqueue.sendTo(m.id, m.message);
      // A finished proposer stays among the children until stopped; thousands would slow every step.
      enqueue.stopChild(event.id);
    }),
    /** Async: a finished proposal joins the pool the moment it finishes. */
    foldOne: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'proposal.finished' || !context.proposals[event.id]) return;
      const { events, search, progress, proposals, spentUsd } = fold(context, [context.proposals[event.id] as Proposal]);
      enqueue.assign({ search, progress, proposals, spentUsd, stopReason: context.stopReason ?? progressStop(progress, context.settings) ?? undefined });
      for (const e of events) enqueue.emit(e);
      enqueue.emit(budgetEvent({ ...context, spentUsd }));
    }),
    /** Async, rebaseWait: children that waited for the valset evaluations just folded are decided now, against the pool with them in it. */
    releaseHeld: enqueueActions(({ context, enqueue }) => {
      let { proposals } = context;
      for (const id of releasedFromWait(proposals)) {
        const decided = decide({ ...context, proposals }, proposals, id);
        proposals = decided.proposals;
        for (const m of decided.messages) enqueue.sendTo(m.id, m.message);
      }
      if (proposals !== context.proposals) enqueue.assign({ proposals });
    }),
    /** Async: start proposals until K are in flight or the budget cannot pay for another. */
    fillAsync: enqueueActions(({ context, enqueue }) => {
      const { schedule } = context.settings;
      if (schedule.kind !== 'async' || context.stopReason !== undefined) return;
      const started = start(context, planAsyncProposals(planInput(context), inFlightCount(context), schedule.inFlight));
      enqueue.assign(started.update);
      for (const event of started.events) enqueue.emit(event);
      for (const s of started.spawns) enqueue.spawnChild('proposer', s);
      if (started.spawns.length > 0) enqueue.emit(budgetEvent(context));
    }),
  },
}).createMachine({
  id: 'optimizer',
  context: ({ input: config }) => {
    const input = prepareRun(config);
    const s = input.settings;
    const sampler = new EpochShuffledSampler(input.table.trainIds.length, s.minibatchSize);
    return {
      input,
      settings: s,
      search: newSearchState(emptyPool({ trackBestOutputs: s.trackBestOutputs }), new Rng(s.seed), sampler, s.maxMerges),
      progress: startProgress(),
      // An earlier process's failed calls were paid and will be paid again: they count from the start.
      ledger: new BudgetLedger({ maxMetricCalls: s.maxMetricCalls }, input.journal?.failedCalls?.() ?? 0),
      spentUsd: 0,
      dollarsExhausted: false,
      abort: new AbortController(),
      proposals: {},
      stepIds: [],
      deferred: [],
      startedAt: input.clock.now(),
    };
  },
  invoke: [
    {
      id: 'evaluator',
      systemId: 'evaluator',
      src: 'evaluator',
      input: ({ context }) => ({
        examples: context.input.table.examples,
        executor: context.input.executor,
        reflectionLm: context.input.reflectionLm,
        workers: context.settings.workers,
        slotPolicy: context.settings.slotPolicy,
        clock: context.input.clock,
        signal: context.abort.signal,
        maxCostUsd: context.settings.maxCostUsd,
        onSlotInterval: context.input.onSlotInterval,
        journal: context.input.journal,
        onEvent: context.input.onEvent,
        failFast: context.settings.failFast,
        maxConsecutiveFailures: context.settings.maxConsecutiveFailures,
        preRunCostUsd: context.input.config.preRunCostUsd,
        proposeNewTexts: context.input.proposeNewTexts,
        onCall: context.input.onCall,
      }),
    },
    {
      src: 'stopSignals',
      input: ({ context }) => ({
        signal: context.input.signal,
        drainSignal: context.input.drainSignal,
        clock: context.input.clock,
        timeoutMs: context.settings.timeoutMs,
      }),
    },
  ],
  on: {
    stop: [
      { guard: ({ event }) => event.graceful === true, actions: assign({ stopReason: ({ context, event }) => context.stopReason ?? event.reason }) },
      { target: '.stopping', actions: assign({ stopReason: ({ event }) => event.reason, error: ({ event }) => event.error }) },
    ],
    'dollars.exhausted': { actions: assign({ dollarsExhausted: true }) },
  },
  initial: 'seeding',
  states: {
    seeding: {
      entry: [
        ({ context }) => {
          context.ledger.reserve(context.input.table.valIds.length);
        },
        emit(({ context }): RunEvent => ({ type: 'run.started', workers: context.settings.workers, valsetSize: context.input.table.valIds.length })),
        sendTo('evaluator', ({ context, self }): EvaluatorRequest => ({
          type: 'evaluate',
          requestId: SEED_REQUEST,
          replyTo: self as AnyActorRef,
          candidate: context.settings.seedCandidate,
          hash: context.settings.seedHash,
          exampleIds: context.input.table.valIds,
          captureTraces: false,
          kind: 'seed',
        })),
      ],
      on: {
        evaluated: {
          target: 'deciding',
          actions: enqueueActions(({ context, event, enqueue }) => {
            context.ledger.settle({ calls: context.input.table.valIds.length }, event.paidCalls);
            const valset = valsetScoresOf(event.evaluations);
            const seed = { candidate: context.settings.seedCandidate, hash: context.settings.seedHash, valset };
            const { search, progress, events } = addSeed(context.search, context.progress, seed, context.ledger.spentCalls);
            const spentUsd = context.spentUsd + event.costUsd;
            enqueue.assign({ search, progress, spentUsd });
            // Every seed call failed: nothing to improve on, so 'deciding' goes straight to the end.
            if (event.systemic !== undefined) enqueue.assign({ stopReason: 'error', error: event.systemic });
            enqueue.emit(budgetEvent({ ...context, spentUsd }));
            for (const e of events) enqueue.emit(e);
          }),
        },
        // A seed call the dollar budget could not pay even with nothing else in flight: the budget ends the run.
        'evaluator.failed': {
          target: 'stopping',
          actions: assign(({ context, event }) => (context.dollarsExhausted ? { stopReason: 'maxCostUsd' } : { stopReason: 'error', error: event.error })),
        },
      },
    },
    deciding: {
      always: [
        { guard: 'hasStopReason', target: 'draining' },
        {
          guard: ({ context }) => progressStop(context.progress, context.settings) !== null,
          target: 'draining',
          actions: assign({ stopReason: ({ context }) => progressStop(context.progress, context.settings) ?? undefined }),
        },
        { guard: 'isAsync', target: 'flowing' },
        { target: 'planning' },
      ],
    },
    // Batched schedule: plan a P x N step (or a merge), run it, fold it in task order.
    planning: {
      entry: enqueueActions(({ context, enqueue }) => {
        const { schedule } = context.settings;
        if (schedule.kind !== 'batched') return;
        const plan = planBatchedStep(planInput(context), schedule);
        const started = start(context, plan);
        enqueue.assign({ ...started.update, stepIds: plan.launches.map((l) => l.proposal.id) });
        if (plan.launches.length > 0) enqueue.emit({ type: 'step.started', step: plan.search.step, tasks: plan.launches.length });
        for (const event of started.events) enqueue.emit(event);
        if (plan.launches.length === 0) return;
        for (const s of started.spawns) enqueue.spawnChild('proposer', s);
        enqueue('reportBudget');
      }),
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
          const { events, ...update } = fold(context, context.stepIds.map((id) => context.proposals[id] as Proposal));
          enqueue.assign({ ...update, stepIds: [] });
          for (const e of events) enqueue.emit(e);
          enqueue('reportBudget');
        }),
      },
    },
    // Async schedule: K proposals always in flight; each is folded the moment it finishes.
    flowing: {
      entry: 'fillAsync',
      on: {
        'proposal.judged': [{ guard: 'outOfTurn', actions: 'defer' }, { actions: ['judge', 'releaseDeferred'] }],
        'proposal.finished': [{ guard: 'outOfTurn', actions: 'defer' }, { actions: ['finish', 'foldOne', 'releaseHeld', 'fillAsync', 'releaseDeferred'] }],
      },
      always: [
        { guard: 'hasStopReason', target: 'draining' },
        { guard: 'idle', target: 'finishing', actions: assign({ stopReason: ({ context }) => context.stopReason ?? 'maxMetricCalls' }) },
      ],
    },
    // Nothing new starts; proposals in flight finish and are folded.
    draining: {
      on: {
        'proposal.judged': [{ guard: 'outOfTurn', actions: 'defer' }, { actions: ['judge', 'releaseDeferred'] }],
        'proposal.finished': [{ guard: 'outOfTurn', actions: 'defer' }, { actions: ['finish', 'foldOne', 'releaseHeld', 'releaseDeferred'] }],
      },
      always: { guard: 'idle', target: 'finishing' },
    },
    // Stop now: abort every call in flight and stop the proposers; their work is not folded.
    stopping: {
      entry: enqueueActions(({ context, enqueue }) => {
        context.abort.abort(new Error(`run stopped: ${context.stopReason}`));
        for (const id of Object.keys(context.proposals)) enqueue.stopChild(id);
        enqueue.assign({ progress: recordStopped(context.progress, Object.values(context.proposals), context.stopReason), proposals: {}, stepIds: [] });
      }),
      on: { stop: {} },
      always: 'finishing',
    },
    finishing: {
      entry: sendTo('evaluator', ({ self }): EvaluatorRequest => ({ type: 'report', replyTo: self as AnyActorRef })),
      on: {
        // Too late to stop: the result is being assembled.
        stop: {},
        'evaluator.stats': {
          target: 'done',
          actions: [assign({ stats: ({ event }) => event }), emit(({ context }): RunEvent => ({ type: 'run.ended', stopReason: context.stopReason ?? 'done' }))],
        },
      },
    },
    done: { type: 'final' },
  },
  output: ({ context }) =>
    buildResult({
      pool: context.search.pool,
      metricCalls: context.stats?.metricCalls ?? context.ledger.spentCalls,
      reflectionCalls: context.stats?.reflectionCalls ?? context.progress.reflectionCalls,
      costUsd: context.stats?.costUsd ?? context.spentUsd,
      stopReason: context.stopReason ?? 'done',
      proposals: context.progress.records,
      elapsedMs: context.input.clock.now() - context.startedAt,
      busySlotMs: context.stats?.busySlotMs ?? 0,
      workers: context.settings.workers,
      failures: context.stats?.failures,
      error: context.error,
    }),
});
