// The optimizer's vocabulary and its XState set-up: the context (plain data: the search run, the
// walk of a resumed run's logged path, the launches whose parent evaluation it asked for), its
// events and children, what it hands each proposer, and the setup (actors, guards, the plain
// named actions) that optimizer.actions.ts and optimizer.machine.ts build on.
import { enqueueActions, setup, type CallbackActorLogic } from 'xstate';
import { heldCalls } from '../src/budget/heldCalls.js';
import { memberOf } from '../src/gepa/core/candidatePool.js';
import { evaluationAsk } from '../src/gepa/proposer/evaluationPlan.js';
import { evaluationStartedEvent } from '../src/gepa/proposer/taskEvents.js';
import type { Launch } from '../src/gepa/search/proposalPlanner.js';
import { parentRequestId } from '../src/gepa/search/launchRules.js';
import { startRun } from '../src/gepa/search/searchRun.js';
import { RunState } from '../src/gepa/search/runState.js';
import { PathWalk, startResume, type LoggedDecision } from '../src/storage/resumeOrder.js';
import type { ReflectionEvidence } from '../src/gepa/reflection/reflectionStrategy.js';
import { startAutoWatch, type AutoWatch } from '../src/runtimeModel/autoWatch.js';
import type { OptimizeResult } from '../src/gepa/core/optimizeResult.js';
import type { RunEvent } from '../src/gepa/core/runEvent.js';
import type { StopReason } from '../src/gepa/core/stopReason.js';
import { evaluatorActor } from './evaluator.actor.js';
import type { DollarsExhausted, EvaluatorReply, EvaluatorRequest, EvaluatorStats, ProposerDecision, ProposalUpdate, ReplyTo } from './protocol.js';
import { proposerMachine, type ProposerInput } from './proposer.machine.js';
import { stopSignals } from './stopSignals.actor.js';
import { ProposerActorIds, type ProposerActorId } from './proposerActorIds.js';
import { preparedOf, preparedOnly, runWiringActor, settingsOf, wiringOf, type OptimizerInput, type RunWiringRef } from './runWiring.js';

export interface OptimizerContext {
  /** The actor holding the run's wiring (`RunWiring`): a reference, so the context stays plain data (JSON gives its id). */
  wiring: RunWiringRef;
  /**
   * The run's state (src/gepa/search/runState.ts), held by reference for the whole run: only the
   * named actions change it, each through one of its methods; guards read it. JSON gives its
   * plain values, its summary first.
   */
  run: RunState;
  /**
   * Async schedule: how far the run has walked the path its journal logged, and the proposers'
   * updates that came before their turn on it, held by reference like the run's state
   * (src/storage/resumeOrder.ts; a batched run follows no path).
   */
  walk: PathWalk<ProposalUpdate>;
  startedAt: number;
  stats?: EvaluatorStats;
  /**
   * What the run has seen of its proposals besides its state, held by reference like it and
   * changed in place by the same named actions through domain functions: a strategy that reads
   * other proposals' results (its `evidence`) gets the recent ones, newest first in launch order
   * (evidenceHistory.ts); schedule 'auto' folds what it observes into its watch and decides the
   * shape from it (runtimeModel/autoWatch.ts; absent otherwise). `atLaunch`: the evidence as it
   * was when a proposal whose parent evaluation the optimizer asks for was launched, until its
   * proposer starts: the proposal reads what was there at its launch, a point on the logged path,
   * not at the answer, whose time a resumed run's replay does not keep.
   */
  seen: { evidence: ReflectionEvidence[]; atLaunch: Record<string, ReflectionEvidence[]>; auto?: AutoWatch };
  /** The running proposers' actor ids by proposal (proposerActorIds.ts says why not the proposal ids), held by reference. */
  proposers: ProposerActorIds;
}

export type OptimizerEvent =
  | EvaluatorReply
  | ProposalUpdate
  | EvaluatorStats
  | DollarsExhausted
  /** graceful: start nothing new and let what is in flight finish; else stop now. */
  | { type: 'stop'; reason: StopReason; graceful?: boolean; error?: string };

export type OptimizerChildren = { evaluator: 'evaluator'; run: 'run' } & { [proposer: ProposerActorId]: 'proposer' };

export const SEED_REQUEST = -1;
/** The holdout's evaluation of its i-th candidate: the optimizer's own requests below the seed's. */
export const holdoutRequestId = (i: number): number => SEED_REQUEST - 1 - i;
const holdoutIndexOf = (requestId: number): number => SEED_REQUEST - 1 - requestId;

/** Typed as the contract a replacement proposer meets (`provide`): it takes ProposerInput and answers; its snapshot is never read. */
export const proposerActor = proposerMachine as unknown as CallbackActorLogic<ProposerDecision, ProposerInput>;

export const elapsedMs = (context: OptimizerContext): number => preparedOf(context).clock.now() - context.startedAt;

export const isAsync = (context: OptimizerContext): boolean => settingsOf(context).schedule.kind === 'async';

export const isUpdate = (event: OptimizerEvent): event is ProposalUpdate => event.type === 'proposal.judged' || event.type === 'proposal.finished';

/** Room a resumed run keeps for logged work (RunJournal.heldWork): launches and rebases alike leave it. */
export const spendingLimits = (context: OptimizerContext) => ({ heldCalls: heldCalls(preparedOf(context).journal, context.walk.walk()) });

/** A proposer's input; `parentEvaluated` when the optimizer evaluated its parent (ProposerInput.parentEvaluated). */
export function proposerInput(context: OptimizerContext, launch: Launch, evidence: ReflectionEvidence[] = context.seen.evidence, parentEvaluated?: ProposerInput['parentEvaluated']): ProposerInput {
  const { settings, table, buildDataset, reflection, onEvent } = preparedOf(context);
  const { proposal } = launch;
  const readsEvidence = (reflection?.strategy.evidence ?? 0) > 0;
  const parent = memberOf(context.run.search.pool, launch.parent);
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
    // A sibling's parent records are its group's first proposal's: shared once, by that one.
    ...(readsEvidence ? (proposal.siblingOf === undefined ? { shareEvidence: true, evidence } : { evidence }) : {}),
    ...(proposal.siblingOf === undefined ? {} : { sample: proposal.step - proposal.siblingOf }),
    ...(launch.merge ? { merge: launch.merge } : {}),
    ...(parentEvaluated ? { parentEvaluated } : {}),
  };
}

/** The proposer the run spawns is the built-in one (not replaced with `provide`): read off the actor's machine (`Actor.logic`, `StateMachine.implementations`, both public). */
export function builtInProposer(self: unknown): boolean {
  const logic = (self as { logic?: { implementations?: { actors?: Record<string, unknown> } } }).logic;
  return logic?.implementations?.actors?.proposer === proposerActor;
}

/** A launch whose parent evaluation the optimizer asks for: the run event a proposer would tell, and the request. */
export function askParent(launch: Launch, input: ProposerInput, self: ReplyTo<EvaluatorReply>): { started: RunEvent; request: EvaluatorRequest } {
  const origin = { step: input.step, task: input.task };
  return {
    started: evaluationStartedEvent('parent', origin),
    request: { type: 'evaluate', replyTo: self, ...evaluationAsk('parent', input), requestId: parentRequestId(launch.proposal), origin },
  };
}

/** The run's state before the seed is evaluated: the search from the settings, the walk of the logged path at its start. */
export function initialContext(wiring: OptimizerContext['wiring'], builtInProposer: boolean): OptimizerContext {
  const snapshot = wiring.getSnapshot();
  // The input could not be prepared (a ConfigError): the run fails as it is made.
  if (snapshot.status === 'error') throw snapshot.error;
  const { settings, table, journal, clock } = snapshot.context.prepared;
  const async = settings.schedule.kind === 'async';
  return {
    wiring,
    // An earlier process's failed calls were paid and will be paid again: they count from the start.
    run: new RunState(startRun(settings, table, journal?.failedCalls?.() ?? 0), builtInProposer),
    walk: new PathWalk<ProposalUpdate>(startResume(journal?.loggedPath?.(), async), [], journal?.recordDecision !== undefined),
    startedAt: clock.now(),
    seen: { evidence: [], atLaunch: {}, ...(async && settings.schedule.kind === 'async' && settings.schedule.auto ? { auto: startAutoWatch() } : {}) },
    proposers: new ProposerActorIds(),
  };
}

export const optimizerSetup = setup({
  types: {
    context: {} as OptimizerContext,
    events: {} as OptimizerEvent,
    input: {} as OptimizerInput,
    output: {} as OptimizeResult,
    emitted: {} as RunEvent,
    /** The evaluator by its id; proposers by reused ids (`proposer-<n>`), each with its proposal's id (`p<step>-<task>`, `merge-<step>`) as its systemId. */
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
    stepFinished: ({ context }) => context.run.stepFinished(),
    idle: ({ context }) => context.run.nothingInFlight(),
    hasStopReason: ({ context }) => context.run.stopReason !== undefined,
    /** A reply to one of the holdout's evaluations (finishing). */
    holdoutReply: ({ context, event }) => (event.type === 'evaluated' || event.type === 'evaluator.failed') && event.requestId < SEED_REQUEST && (context.run.holdout?.pending ?? 0) > 0,
    /** A read of the run's state: the walk of the logged path is in the context, not in the journal. */
    outOfTurn: ({ context, event }) => isUpdate(event) && context.walk.outOfTurn(context.run.proposals, event.id),
  },
  actions: {
    /** Async resume: keep an update until its turn on the logged path. */
    defer: enqueueActions(({ context, event }) => {
      if (isUpdate(event)) context.walk.defer(event);
    }),
    /** The one write to the log of decisions: a decision taken off the logged path (takeDecision said so). */
    logDecision: ({ context }, decision: LoggedDecision) => preparedOf(context).journal?.recordDecision?.(decision),
    /** A holdout evaluation folded in; once none is awaited, the evaluator is asked for its counts. */
    holdoutReplied: enqueueActions(({ context, event, self, enqueue }) => {
      if (event.type !== 'evaluated' && event.type !== 'evaluator.failed') return;
      const done = context.run.holdoutReplied(holdoutIndexOf(event.requestId), event.type === 'evaluated' ? event : { paidCalls: event.paidCalls });
      if (done) enqueue.sendTo('evaluator', { type: 'stats', replyTo: self } satisfies EvaluatorRequest);
    }),
    /** Stop now: every call in flight is aborted through the run's signal. */
    abortCalls: ({ context }) => wiringOf(context).abort.abort(new Error(`run stopped: ${context.run.stopReason}`)),
  },
});

