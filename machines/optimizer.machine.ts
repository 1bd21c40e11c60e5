// The optimizer: owns the run. It is the only writer of the pool, the budget ledger and the
// RNG; it evaluates the seed, plans proposals (a P x N step at a time, or K always in flight),
// spawns one proposer per proposal, answers each accepted child with a valset grant or a
// denial, folds finished proposals into the pool through the domain, and stops on a budget, a
// stop condition, the timeout or the caller's signal. Its output is the OptimizeResult.
import { assign, emit, enqueueActions, sendTo, setup, type AnyActorRef } from 'xstate';
import { BudgetLedger, type Reservation } from '../src/budget/budgetLedger.js';
import { bestIndex, emptyPool, addCandidate, indexOfHash, poolFronts, withComponentPointers, type CandidatePool } from '../src/gepa/core/candidatePool.js';
import { candidateHash } from '../src/gepa/core/candidateHash.js';
import { EpochShuffledSampler } from '../src/gepa/strategies/minibatchSampler.js';
import { planMerge, tripleKey } from '../src/gepa/proposer/merge.js';
import { foldProposals, type FinishedProposal } from '../src/gepa/core/proposalFold.js';
import { planStep } from '../src/gepa/strategies/proposalSampling.js';
import { mayStartValsetEarly, selectProposals, type MinibatchOutcome, type SelectionDecision } from '../src/gepa/strategies/proposalSelection.js';
import { buildResult } from '../src/gepa/core/result.js';
import { Rng } from '../src/gepa/core/rng.js';
import type { RunSettings } from '../src/config/runSettings.js';
import { prepareRun, type PreparedRun } from '../src/config/preparedRun.js';
import { affordableTasks, budgetStopReason, progressStopReason, type ProgressView } from '../src/gepa/strategies/stopConditions.js';
import { paretoSamplingList } from '../src/gepa/strategies/parentSelection.js';
import type { Candidate, OptimizeConfig, OptimizeResult, ProposalRecord, RunEvent } from '../src/types.js';
import { evaluatorActor } from './evaluator.actor.js';
import { stopSignals } from './stopSignals.actor.js';
import type { EvaluatorReply, EvaluatorRequest, EvaluatorStats, ProposerReport } from './protocol.js';
import { proposerMachine, type ProposerInput } from './proposer.machine.js';


/** One proposal in flight. */
export interface Proposal {
  id: string;
  step: number;
  task: number;
  kind: 'reflective' | 'merge';
  parents: number[];
  reservation: Reservation;
  poolSizeAtStart: number;
  outcome?: MinibatchOutcome;
  child?: Candidate;
  decision?: SelectionDecision;
  granted: boolean;
  finished?: Extract<ProposerReport, { type: 'proposal.finished' }>;
}

export interface OptimizerContext {
  input: PreparedRun;
  settings: RunSettings;
  rng: Rng;
  sampler: EpochShuffledSampler;
  ledger: BudgetLedger;
  /** Aborts every call in flight when the run stops early. */
  abort: AbortController;
  pool: CandidatePool;
  step: number;
  proposals: Record<string, Proposal>;
  /** Ids of the current batched step's proposals, in task order. */
  stepIds: string[];
  /** Append-only, so the optimizer appends in place (copying it per proposal would be quadratic). */
  records: ProposalRecord[];
  mergesLeft: number;
  mergeDue: boolean;
  triedMerges: string[];
  bestScore: number;
  stepsWithoutImprovement: number;
  stopReason?: string;
  startedAt: number;
  reflectionCalls: number;
  reflectionCostUsd: number;
  stats?: EvaluatorStats;
}

export type OptimizerEvent =
  | EvaluatorReply
  | ProposerReport
  | EvaluatorStats
  /** graceful: start nothing new and let what is in flight finish; else stop now. */
  | { type: 'stop'; reason: string; graceful?: boolean };

const SEED_REQUEST = -1;

/** Worst-case metric calls of one reflective proposal: two minibatch evaluations and a valset one. */
const reflectiveCalls = (s: RunSettings, valsetSize: number) => 2 * s.minibatchSize + valsetSize;

function inFlightCount(context: OptimizerContext): number {
  return Object.keys(context.proposals).length;
}

function proposerInput(context: OptimizerContext, p: { id: string; step: number; task: number; parent: number; minibatch: number[]; components: string[] }): ProposerInput {
  const { settings, input, pool } = context;
  return {
    id: p.id,
    step: p.step,
    task: p.task,
    parent: pool.candidates[p.parent] as Candidate,
    parentHash: pool.hashes[p.parent] as string,
    minibatch: p.minibatch,
    valIds: input.table.valIds,
    components: p.components,
    examples: input.table.examples,
    acceptance: settings.acceptance,
    skipPerfectScore: settings.skipPerfectScore,
    perfectScore: settings.perfectScore,
    buildDataset: input.buildDataset,
    report: input.onEvent,
  };
}

interface Launch {
  proposal: Proposal;
  input: ProposerInput;
}

/**
 * Plans up to `maxTasks` proposals (one step, or one async proposal): a merge when one is due
 * and possible, else reflective tasks from planStep. Reserves their worst case in the ledger.
 * Mutates the RNG, sampler and ledger (owned by the optimizer alone); returns the new pool
 * pointers and the launches.
 */
function planLaunches(context: OptimizerContext, step: number, maxTasks: number, shape: { parents: number; perParent: number }): { launches: Launch[]; pool: CandidatePool; mergeTried?: string } {
  const { settings, pool, rng, ledger, input } = context;
  const valIds = input.table.valIds;
  if (context.mergeDue && context.mergesLeft > 0) {
    const plan = planMerge(pool, poolFronts(pool, settings.frontType), new Set(context.triedMerges), rng);
    const reservation = plan ? ledger.reserve(plan.subsample.length + valIds.length) : null;
    if (plan && reservation) {
      const id = `merge-${step}`;
      const [a, b] = [plan.triple.a, plan.triple.b];
      const proposal: Proposal = { id, step, task: 0, kind: 'merge', parents: [a, b], reservation, poolSizeAtStart: pool.candidates.length, granted: false };
      const base = proposerInput(context, { id, step, task: 0, parent: a, minibatch: plan.subsample.map((j) => valIds[j] as number), components: [] });
      return { launches: [{ proposal, input: { ...base, merge: { child: plan.child, parentSums: plan.parentSums } } }], pool, mergeTried: tripleKey(plan.triple) };
    }
  }
  const plan = planStep({
    pool,
    shape,
    maxTasks,
    frontType: settings.frontType,
    parentSelection: settings.parentSelection,
    componentSelection: settings.componentSelection,
    componentNames: settings.componentNames,
    rng,
    sampler: context.sampler,
  });
  const perTask = reflectiveCalls(settings, valIds.length);
  const launches = plan.tasks.map((t): Launch => {
    const id = `p${step}-${t.task}`;
    const reservation = ledger.reserve(perTask) as Reservation;
    return {
      proposal: { id, step, task: t.task, kind: 'reflective', parents: [t.parent], reservation, poolSizeAtStart: pool.candidates.length, granted: false },
      input: proposerInput(context, { id, step, task: t.task, parent: t.parent, minibatch: t.minibatch.map((i) => input.table.trainIds[i] as number), components: t.components }),
    };
  });
  return { launches, pool: withComponentPointers(pool, plan.componentPointers) };
}

type LaunchUpdate = Pick<OptimizerContext, 'step' | 'pool' | 'proposals' | 'mergeDue' | 'mergesLeft' | 'triedMerges'>;

/** Plans one step's launches (see planLaunches) and the context they leave behind. */
function launchStep(context: OptimizerContext, step: number, maxTasks: number, shape: { parents: number; perParent: number }): { launches: Launch[]; update: LaunchUpdate } {
  const { launches, pool, mergeTried } = planLaunches(context, step, maxTasks, shape);
  return {
    launches,
    update: {
      step,
      pool,
      proposals: { ...context.proposals, ...Object.fromEntries(launches.map((l) => [l.proposal.id, l.proposal])) },
      mergeDue: mergeTried ? false : context.mergeDue,
      mergesLeft: mergeTried ? context.mergesLeft - 1 : context.mergesLeft,
      triedMerges: mergeTried ? [...context.triedMerges, mergeTried] : context.triedMerges,
    },
  };
}

function budgetEvent(context: OptimizerContext): RunEvent {
  const { ledger } = context;
  return { type: 'budget.updated', metricCalls: ledger.spentCalls, reserved: ledger.reservedCalls, costUsd: context.input.dollars.spentUsd };
}

function planEvents(launches: Launch[]): RunEvent[] {
  return launches.flatMap(({ proposal: p, input }) => [
    { type: 'proposal.started', step: p.step, task: p.task } as const,
    { type: 'candidate.selected', step: p.step, task: p.task, parent: p.parents[0] as number } as const,
    { type: 'minibatch.sampled', step: p.step, task: p.task, ids: input.minibatch } as const,
  ]);
}

function progressView(settings: RunSettings, progress: { bestScore?: number; stepsWithoutImprovement?: number }): ProgressView {
  return {
    bestScore: progress.bestScore ?? -Infinity,
    stepsWithoutImprovement: progress.stepsWithoutImprovement ?? 0,
    targetScore: settings.targetScore,
    maxStepsWithoutImprovement: settings.maxStepsWithoutImprovement,
  };
}

function appendRecords(records: ProposalRecord[], more: ProposalRecord[]): ProposalRecord[] {
  for (const r of more) records.push(r);
  return records;
}

/**
 * Once every proposal of the batched step has its verdict, selects among them and answers each
 * accepted child still waiting with a grant or a denial. Returns the proposals with decisions.
 */
function decideStep(context: OptimizerContext, answer: (id: string, grant: boolean) => void): Record<string, Proposal> {
  const step = context.stepIds.map((id) => context.proposals[id] as Proposal);
  if (!step.every((q) => q.outcome !== undefined) || step.every((q) => q.decision !== undefined)) return context.proposals;
  const proposals = { ...context.proposals };
  const decisions = selectProposals(step.map((q) => q.outcome as MinibatchOutcome), context.settings.proposalSelection, (hash) => indexOfHash(context.pool, hash));
  step.forEach((q, i) => {
    const decision = decisions[i] as SelectionDecision;
    const awaiting = q.outcome?.status === 'judged' && q.outcome.verdict.accepted && !q.granted && !q.finished;
    if (awaiting) answer(q.id, decision.selected);
    proposals[q.id] = { ...q, decision, granted: q.granted || (awaiting && decision.selected) };
  });
  return proposals;
}

function toFinished(p: Proposal): FinishedProposal {
  const outcome = p.outcome ?? { task: p.task, status: 'skipped', reason: 'an evaluation could not be completed' };
  return {
    step: p.step,
    task: p.task,
    kind: p.kind,
    parents: p.parents,
    outcome,
    // Without a decision (async, or a step never selected) a proposal keeps its verdict's reason.
    decision: p.decision ?? (selectProposals([outcome], 'all', () => -1)[0] as SelectionDecision),
    child: p.child,
    valset: p.finished?.valset,
    poolSizeAtStart: p.poolSizeAtStart,
    reflectionCostUsd: p.finished?.reflectionCostUsd ?? 0,
  };
}

/** Folds finished proposals (already in the right order) into the pool and the bookkeeping. */
function fold(context: OptimizerContext, finished: Proposal[], countsAsStep: boolean): Partial<OptimizerContext> & { events: RunEvent[] } {
  const elapsed = context.input.clock.now() - context.startedAt;
  const folded = foldProposals(context.pool, finished.map(toFinished), context.ledger.spentCalls, elapsed);
  const best = bestIndex(folded.pool);
  const bestScore = folded.pool.valScores[best] ?? 0;
  const improved = bestScore > context.bestScore;
  const events: RunEvent[] = [];
  for (const r of folded.records) {
    events.push({ type: 'proposal.ended', step: r.step, task: r.task, outcome: r.outcome, reason: r.reason });
    if (r.outcome === 'accepted' && r.candidateIndex !== undefined) {
      events.push({ type: 'candidate.accepted', index: r.candidateIndex, parents: r.parents, valScore: folded.pool.valScores[r.candidateIndex] ?? 0, candidate: folded.pool.candidates[r.candidateIndex] });
    } else if (r.outcome === 'rejected') {
      events.push({ type: 'candidate.rejected', step: r.step, task: r.task, reason: r.reason });
    }
  }
  if (folded.added.length > 0) {
    const fronts = poolFronts(folded.pool, context.settings.frontType);
    // The non-dominated candidates: the sampling list is memoized and the next plan reuses it.
    events.push({ type: 'front.updated', bestIndex: best, bestScore, frontSize: new Set(paretoSamplingList(fronts, folded.pool.valScores)).size });
  }
  const proposals = { ...context.proposals };
  for (const p of finished) delete proposals[p.id];
  return {
    pool: folded.pool,
    records: appendRecords(context.records, folded.records),
    proposals,
    bestScore: Math.max(bestScore, context.bestScore),
    stepsWithoutImprovement: countsAsStep ? (improved ? 0 : context.stepsWithoutImprovement + 1) : context.stepsWithoutImprovement,
    mergeDue: folded.added.length > 0 ? true : context.mergeDue,
    reflectionCalls: context.reflectionCalls + finished.reduce((n, p) => n + (p.finished?.reflectionCalls ?? 0), 0),
    reflectionCostUsd: context.reflectionCostUsd + finished.reduce((n, p) => n + (p.finished?.reflectionCostUsd ?? 0), 0),
    events,
  };
}

export const optimizerMachine = setup({
  types: {
    context: {} as OptimizerContext,
    events: {} as OptimizerEvent,
    input: {} as OptimizeConfig<unknown>,
    output: {} as OptimizeResult,
    emitted: {} as RunEvent,
  },
  actors: {
    evaluator: evaluatorActor,
    proposer: proposerMachine,
    stopSignals,
  },
  guards: {
    isAsync: ({ context }) => context.settings.schedule.kind === 'async',
    stepFinished: ({ context }) => context.stepIds.every((id) => context.proposals[id]?.finished !== undefined),
    idle: ({ context }) => inFlightCount(context) === 0,
    hasStopReason: ({ context }) => context.stopReason !== undefined,
  },
  actions: {
    reportBudget: emit(({ context }) => budgetEvent(context)),
    /** Async: a lone proposal's verdict is decided at once (nothing else in its "step"). */
    decideAsync: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'proposal.judged') return;
      const p = context.proposals[event.id];
      if (!p) return;
      const [decision] = selectProposals([event.outcome], 'all', (hash) => indexOfHash(context.pool, hash)) as [SelectionDecision];
      const awaiting = event.outcome.status === 'judged' && event.outcome.verdict.accepted;
      if (awaiting) enqueue.sendTo(p.id, { type: decision.selected ? 'valset.granted' : 'valset.denied' });
      enqueue.assign({ proposals: { ...context.proposals, [p.id]: { ...p, outcome: event.outcome, child: event.child, decision, granted: awaiting && decision.selected } } });
    }),
    /** Async: a finished proposal joins the pool the moment it finishes. */
    foldAsync: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'proposal.finished') return;
      const p = context.proposals[event.id];
      if (!p) return;
      const { events, ...update } = fold(context, [p], true);
      enqueue.assign({ ...update, stopReason: context.stopReason ?? progressStopReason(progressView(context.settings, update)) ?? undefined });
      for (const e of events) enqueue.emit(e);
      enqueue.emit(budgetEvent(context));
    }),
    /** Async: start proposals until K are in flight or the budget cannot pay for another. */
    fillAsync: enqueueActions(({ context, enqueue }) => {
      const s = context.settings;
      if (s.schedule.kind !== 'async' || context.stopReason !== undefined) return;
      const perTask = reflectiveCalls(s, context.input.table.valIds.length);
      let ctx = context;
      const launches: Launch[] = [];
      while (inFlightCount(ctx) < s.schedule.inFlight && affordableTasks(ctx.ledger, perTask, ctx.input.dollars) > 0) {
        const planned = launchStep(ctx, ctx.step + 1, 1, { parents: 1, perParent: 1 });
        if (planned.launches.length === 0) break;
        launches.push(...planned.launches);
        ctx = { ...ctx, ...planned.update };
      }
      const stopReason = inFlightCount(ctx) === 0 ? budgetStopReason(ctx.ledger, perTask) : undefined;
      const { step, pool, proposals, mergeDue, mergesLeft, triedMerges } = ctx;
      enqueue.assign({ step, pool, proposals, mergeDue, mergesLeft, triedMerges, stopReason });
      for (const event of planEvents(launches)) enqueue.emit(event);
      for (const l of launches) enqueue.spawnChild('proposer', { id: l.proposal.id, input: l.input });
      if (launches.length > 0) enqueue.emit(budgetEvent(context));
    }),
    /** Settles a finished proposal's reservation and records its report. */
    recordFinished: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'proposal.finished') return;
      const p = context.proposals[event.id];
      if (!p) return;
      context.ledger.settle(p.reservation, event.paidCalls);
      const outcome = p.outcome ?? event.outcome ?? { task: p.task, status: 'skipped' as const, reason: 'an evaluation could not be completed' };
      enqueue.assign({ proposals: { ...context.proposals, [event.id]: { ...p, outcome, child: p.child ?? event.child, finished: event } } });
      // A finished proposer stays among the children until stopped; thousands would slow every step.
      enqueue.stopChild(event.id);
    }),
  },
}).createMachine({
  id: 'optimizer',
  context: ({ input: config }) => {
    const input = prepareRun(config);
    const s = input.settings;
    return {
      input,
      settings: s,
      rng: new Rng(s.seed),
      sampler: new EpochShuffledSampler(input.table.trainIds.length, s.minibatchSize),
      ledger: new BudgetLedger({ maxMetricCalls: s.maxMetricCalls }),
      abort: new AbortController(),
      pool: emptyPool(),
      step: 0,
      proposals: {},
      stepIds: [],
      records: [],
      mergesLeft: s.maxMerges,
      mergeDue: false,
      triedMerges: [],
      bestScore: -Infinity,
      stepsWithoutImprovement: 0,
      startedAt: input.clock.now(),
      reflectionCalls: 0,
      reflectionCostUsd: 0,
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
        dollars: context.input.dollars,
        onSlotInterval: context.input.onSlotInterval,
        journal: context.input.journal,
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
      { target: '.stopping', actions: assign({ stopReason: ({ event }) => event.reason }) },
    ],
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
          hash: candidateHash(context.settings.seedCandidate),
          exampleIds: context.input.table.valIds,
          captureTraces: false,
          kind: 'seed',
        })),
      ],
      on: {
        evaluated: {
          target: 'deciding',
          actions: [
            assign(({ context, event }) => {
              const valsetSize = context.input.table.valIds.length;
              context.ledger.settle({ calls: valsetSize }, event.paidCalls);
              const { pool } = addCandidate(context.pool, {
                candidate: context.settings.seedCandidate,
                parents: [],
                subscores: event.evaluations.map((e) => e.score),
                objectives: event.evaluations.map((e) => e.objectives),
                metricCallsAtDiscovery: context.ledger.spentCalls,
              });
              return { pool, bestScore: pool.valScores[0] ?? 0 };
            }),
            'reportBudget',
            emit(({ context }): RunEvent => ({ type: 'front.updated', bestIndex: 0, bestScore: context.bestScore, frontSize: 1 })),
          ],
        },
        'evaluator.failed': { target: 'stopping', actions: assign({ stopReason: ({ event }) => `error: ${event.error}` }) },
      },
    },
    deciding: {
      always: [
        { guard: 'hasStopReason', target: 'draining' },
        {
          guard: ({ context }) => progressStopReason(progressView(context.settings, context)) !== null,
          target: 'draining',
          actions: assign({ stopReason: ({ context }) => progressStopReason(progressView(context.settings, context)) ?? undefined }),
        },
        { guard: 'isAsync', target: 'flowing' },
        { target: 'planning' },
      ],
    },
    // Batched schedule: plan a P x N step (or a merge), run it, fold it in task order.
    planning: {
      entry: enqueueActions(({ context, enqueue }) => {
        const s = context.settings;
        if (s.schedule.kind !== 'batched') return;
        const perTask = reflectiveCalls(s, context.input.table.valIds.length);
        const maxTasks = affordableTasks(context.ledger, perTask, context.input.dollars);
        if (maxTasks === 0) {
          enqueue.assign({ stopReason: budgetStopReason(context.ledger, perTask), stepIds: [] });
          return;
        }
        const step = context.step + 1;
        const { launches, update } = launchStep(context, step, maxTasks, s.schedule);
        enqueue.assign({ ...update, stepIds: launches.map((l) => l.proposal.id) });
        enqueue.emit({ type: 'step.started', step, tasks: launches.length });
        for (const event of planEvents(launches)) enqueue.emit(event);
        for (const l of launches) enqueue.spawnChild('proposer', { id: l.proposal.id, input: l.input });
        enqueue('reportBudget');
      }),
      always: [{ guard: 'hasStopReason', target: 'finishing' }, { target: 'stepping' }],
    },
    stepping: {
      on: {
        'proposal.judged': {
          actions: enqueueActions(({ context, event, enqueue }) => {
            const p = context.proposals[event.id];
            if (!p) return;
            const inPool = (hash: string) => indexOfHash(context.pool, hash);
            const proposals = { ...context.proposals, [p.id]: { ...p, outcome: event.outcome, child: event.child } };
            // With selection 'all' an accepted child goes to the valset at once.
            if (mayStartValsetEarly(context.settings.proposalSelection, event.outcome, inPool)) {
              proposals[p.id] = { ...(proposals[p.id] as Proposal), granted: true };
              enqueue.sendTo(p.id, { type: 'valset.granted' });
            }
            enqueue.assign({ proposals: decideStep({ ...context, proposals }, (id, grant) => enqueue.sendTo(id, { type: grant ? 'valset.granted' : 'valset.denied' })) });
          }),
        },
        'proposal.finished': {
          actions: [
            'recordFinished',
            enqueueActions(({ context, enqueue }) => {
              enqueue.assign({ proposals: decideStep(context, (id, grant) => enqueue.sendTo(id, { type: grant ? 'valset.granted' : 'valset.denied' })) });
            }),
          ],
        },
      },
      always: {
        guard: 'stepFinished',
        target: 'deciding',
        actions: enqueueActions(({ context, enqueue }) => {
          const step = context.stepIds.map((id) => context.proposals[id] as Proposal);
          const { events, ...update } = fold(context, step, true);
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
        'proposal.judged': { actions: 'decideAsync' },
        'proposal.finished': { actions: ['recordFinished', 'foldAsync', 'fillAsync'] },
      },
      always: [
        { guard: 'hasStopReason', target: 'draining' },
        { guard: 'idle', target: 'finishing', actions: assign({ stopReason: ({ context }) => context.stopReason ?? 'maxMetricCalls' }) },
      ],
    },
    // Nothing new starts; proposals in flight finish and are folded.
    draining: {
      on: {
        'proposal.judged': { actions: 'decideAsync' },
        'proposal.finished': { actions: ['recordFinished', 'foldAsync'] },
      },
      always: { guard: 'idle', target: 'finishing' },
    },
    // Stop now: abort every call in flight and stop the proposers; their work is not folded.
    stopping: {
      entry: enqueueActions(({ context, enqueue }) => {
        context.abort.abort(new Error(`run stopped: ${context.stopReason}`));
        for (const id of Object.keys(context.proposals)) enqueue.stopChild(id);
        const records = Object.values(context.proposals).map((p): ProposalRecord => ({
          step: p.step,
          task: p.task,
          kind: p.kind,
          parents: p.parents,
          outcome: 'skipped',
          reason: `stopped before it finished (${context.stopReason})`,
          staleness: 0,
          reflectionCostUsd: 0,
        }));
        enqueue.assign({ records: appendRecords(context.records, records), proposals: {}, stepIds: [] });
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
      pool: context.pool,
      metricCalls: context.stats?.metricCalls ?? context.ledger.spentCalls,
      reflectionCalls: context.stats?.reflectionCalls ?? context.reflectionCalls,
      costUsd: context.stats?.costUsd ?? context.input.dollars.spentUsd,
      stopReason: context.stopReason ?? 'done',
      proposals: context.records,
      elapsedMs: context.input.clock.now() - context.startedAt,
      busySlotMs: context.stats?.busySlotMs ?? 0,
      workers: context.settings.workers,
    }),
});
