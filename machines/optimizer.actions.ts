// The optimizer's named actions: every change to the run's state (context.run, a RunState held by
// reference: src/gepa/search/runState.ts; and context.walk, the walk of a resumed run's logged
// path) happens here, each step calling one of their methods (a moment of the run, decided by the
// domain in src/gepa/) and emitting, sending, spawning or raising what it answers.
// optimizer.machine.ts names them in its states. A proposal's end runs its steps (settle and
// decide, fold, release the held, prefetch, launch, look at the deferred) as one action, and so
// does a parent evaluation that ends its proposal (skipped or failed) at once, where it had raised
// its end as an event of its own: the same steps in the same order, without a microstep, an
// action list and their garbage each (machines/README.md, "Decisions").
import type { Candidate } from '../src/gepa/core/adapter.js';
import type { RunEvent } from '../src/gepa/core/runEvent.js';
import { addSpend, NOTHING_SPENT, type MinibatchOutcome } from '../src/gepa/core/proposal.js';
import { afterParentEvaluation } from '../src/gepa/proposer/proposalSkips.js';
import { parentSkippedEvent, taskErrorEvent } from '../src/gepa/proposer/taskEvents.js';
import { keepEvidence } from '../src/gepa/reflection/evidenceHistory.js';
import { watchEnd, watchLaunch, watchParent, watchSeed, watchVerdict } from '../src/runtimeModel/autoWatch.js';
import { autoStep, observe } from './optimizer.auto.js';
import type { ProposalUpdate, ProposerDecision } from './protocol.js';
import { evaluatorInbox } from './evaluatorInbox.js';
import { preparedOf, settingsOf } from './runWiring.js';
import { elapsedMs, isAsync, spendingLimits, proposerInput, askParent, optimizerSetup } from './optimizer.setup.js';

/** What an action's steps get: XState's arguments to an enqueueActions. */
type StepArgs = Parameters<Parameters<typeof optimizerSetup.enqueueActions>[0]>[0];

/** A proposal's end, as its proposer reports it (or the optimizer, for a proposal that ended on its parent's evaluation). */
type ProposalFinished = Extract<ProposalUpdate, { type: 'proposal.finished' }>;

/** A run event, emitted to the actor's listeners; none is made when nobody can hear it (PreparedRun.unheard). */
function emitRunEvent({ context, enqueue }: Pick<StepArgs, 'context' | 'enqueue'>, event: RunEvent): void {
  if (!preparedOf(context).unheard) enqueue.emit(event);
}

/** A step's run events, in order (emitRunEvent). */
function emitAll(args: Pick<StepArgs, 'context' | 'enqueue'>, events: readonly RunEvent[]): void {
  for (const e of events) emitRunEvent(args, e);
}

/** A verdict recorded, and whichever children of its group can be answered now, answered. */
function judgeStep(args: StepArgs, report: { id: string; outcome: MinibatchOutcome; child?: Candidate }): void {
  const { context, enqueue } = args;
  // null: not in flight (a late update from a proposal the run already let go).
  const messages = context.run.judge(report, settingsOf(context), spendingLimits(context));
  if (!messages) return;
  // The walk of the logged path one further; off the path, the decision is logged (logDecision).
  const logged = context.walk.take({ kind: 'judged', id: report.id });
  observe(context, (w) => watchVerdict(w, report.id, elapsedMs(context)));
  if (logged) enqueue({ type: 'logDecision', params: logged });
  sendToProposers(args, messages);
}

/** Messages to proposers, each to its proposal's running proposer. */
function sendToProposers({ context, enqueue }: StepArgs, messages: ReadonlyArray<{ id: string; message: ProposerDecision }>): void {
  for (const m of messages) {
    // A proposal with no proposer fails the send by its own id, as it always did (a bug, never a dropped message).
    enqueue.sendTo(context.proposers.of(m.id) ?? m.id, m.message);
  }
}

/** A proposal's end: its reservation settled, its update recorded, its proposer stopped, its group decided. */
function finishStep(args: StepArgs, report: ProposalFinished): void {
  const { context, enqueue } = args;
  const messages = context.run.finish(report, settingsOf(context), spendingLimits(context));
  if (!messages) return;
  const logged = context.walk.take({ kind: 'finished', id: report.id });
  // A strategy that reads other proposals' results: this one's parent records join the history (in launch order).
  const keep = preparedOf(context).reflection?.strategy.evidence ?? 0;
  if (report.evidence && keep > 0) context.seen.evidence = keepEvidence(context.seen.evidence, report.evidence, keep);
  // auto: a child judged here (rejected) times its reflection; a valset evaluation means it went on to the pool.
  const outcome = report.outcome?.status === 'skipped' ? 'skipped' : report.valset !== undefined ? 'accepted' : report.outcome ? 'rejected' : undefined;
  observe(context, (w) => watchEnd(outcome === 'rejected' ? watchVerdict(w, report.id, elapsedMs(context)) : w, report.id, outcome, report.spend.paidCalls));
  if (logged) enqueue({ type: 'logDecision', params: logged });
  sendToProposers(args, messages);
  // A finished proposer stays among the children until stopped; thousands would slow every step.
  // A proposal skipped on the parent evaluation the optimizer asked for has none (XState clones
  // the snapshot even to stop a child it does not have: most async proposals late in a run).
  const proposer = context.proposers.stopped(report.id);
  if (proposer !== undefined) enqueue.stopChild(proposer);
}

/** Async: a finished proposal joins the pool the moment it finishes. */
function foldOneStep(args: StepArgs, id: string): void {
  emitAll(args, args.context.run.foldOne(id, { elapsedMsNow: elapsedMs(args.context) }, settingsOf(args.context)));
}

/** Async, rebaseWait: children that waited for the valset evaluations just folded are decided now, against the pool with them in it. */
function releaseHeldStep(args: StepArgs): void {
  sendToProposers(args, args.context.run.releaseHeld(settingsOf(args.context), spendingLimits(args.context)));
}

/** Async, speculate 'rebase-gate': held children waiting on one valset evaluation evaluate their possible rebase gates ahead. */
function prefetchGatesStep(args: StepArgs): void {
  sendToProposers(args, args.context.run.prefetchGates(settingsOf(args.context)));
}

/** Start what the launch rules answer (src/gepa/search/launchRules.ts): a batched step, or async proposals until the shape's K are in flight. */
function launchStep({ context, event, enqueue, self, system }: StepArgs): void {
  // Schedule 'auto': the shape decided (or taken from the logged path) before anything starts.
  const step = autoStep(context);
  if (step?.event) emitRunEvent({ context, enqueue }, step.event);
  if (step?.logged) enqueue({ type: 'logDecision', params: step.logged });
  const next = context.run.launch({ settings: settingsOf(context), table: preparedOf(context).table, limits: spendingLimits(context), afterVerdict: event.type === 'proposal.judged' });
  if (!next) return;
  const now = elapsedMs(context);
  observe(context, (w) => next.starts.reduce((acc, s) => watchLaunch(acc, s.launch.proposal.id, now), w));
  emitAll({ context, enqueue }, next.events);
  for (const { launch, optimizerAsksParent } of next.starts) {
    if (!optimizerAsksParent) {
      enqueue.spawnChild('proposer', { id: context.proposers.spawned(launch.proposal.id), systemId: launch.proposal.id, input: proposerInput(context, launch) });
      continue;
    }
    // Where the proposer would have started (its start is deferred like these sends): its
    // run event, then its request; a sibling's is its group's first proposal's.
    const input = proposerInput(context, launch);
    if (input.evidence) context.seen.atLaunch[launch.proposal.id] = input.evidence;
    if (launch.proposal.siblingOf !== undefined) continue;
    const { started, request } = askParent(launch, input, self);
    emitRunEvent({ context, enqueue }, started);
    enqueue.sendTo(evaluatorInbox({ system }), request);
  }
  if (next.budget) emitRunEvent({ context, enqueue }, next.budget);
}

/** After a decision, the updates that came before their turn are looked at again (one of them may be next). */
function releaseDeferredStep({ context, enqueue }: StepArgs): void {
  for (const update of context.walk.takeDeferred()) enqueue.raise(update);
}

/** Async: a proposal's end and what follows it, in order; kept for its turn when a resumed run's logged path has another proposal first. */
function proposalEndedSteps(args: StepArgs, report: ProposalFinished): void {
  const { context } = args;
  if (context.walk.outOfTurn(context.run.proposals, report.id)) {
    context.walk.defer(report);
    return;
  }
  finishStep(args, report);
  foldOneStep(args, report.id);
  releaseHeldStep(args);
  prefetchGatesStep(args);
  // Draining (a stop reason is set), the launch rules start nothing.
  launchStep(args);
  releaseDeferredStep(args);
}

/** A proposal that ended on the parent evaluation the optimizer asked for: async, its end and what follows; batched, its end (the step is folded once all have ended). */
function endedOnItsParent(args: StepArgs, report: ProposalFinished): void {
  if (isAsync(args.context)) proposalEndedSteps(args, report);
  else finishStep(args, report);
}

export const optimizerActions = {
  /** A stop asked for (the caller's signal, the timeout, a drain, a systemic failure): the stop decision told. */
  stopRequested: optimizerSetup.enqueueActions(({ context, event }) => {
    if (event.type !== 'stop') return;
    context.run.decideStop(event.graceful === true ? { kind: 'request', reason: event.reason, graceful: true } : { kind: 'request', reason: event.reason, graceful: false, error: event.error });
  }),
  /** The evaluator said the dollars left cannot pay for another call: nothing more is planned. */
  dollarsRanOut: optimizerSetup.enqueueActions(({ context }) => context.run.dollarsRanOut()),
  /** Seedless: the reflection model's answer read as the first candidate (or a retry for its length, or the stop decision's, when it wrote none). */
  seedWritten: optimizerSetup.enqueueActions(({ context, event, enqueue }) => {
    if (event.type !== 'reflected') return;
    emitAll({ context, enqueue }, context.run.seedWritten(preparedOf(context).seedless?.component ?? '', event, settingsOf(context).maxCandidateLength));
  }),
  /** An abort while the holdout set was scored: its scoring cut short, the valset's choice stands. */
  holdoutCutShort: optimizerSetup.enqueueActions(({ context }) => context.run.holdoutCutShort()),
  /** The seed's valset evaluation reserved before it is asked for. */
  reserveSeed: optimizerSetup.enqueueActions(({ context }) => {
    context.run.reserveSeed(preparedOf(context).table.valIds.length);
    observe(context, (w) => ({ ...w, seedAskedAt: elapsedMs(context) }));
  }),
  /** The seed's evaluation folded in: the first fold, which asks the stop decision. */
  foldSeed: optimizerSetup.enqueueActions(({ context, event, enqueue }) => {
    if (event.type !== 'evaluated') return;
    const events = context.run.foldSeed(settingsOf(context), event, { elapsedMsNow: elapsedMs(context) });
    observe(context, (w) => watchSeed(w, elapsedMs(context), preparedOf(context).table.valIds.length, settingsOf(context).workers));
    emitAll({ context, enqueue }, events);
  }),
  /** The seed (or the call that would write it) failed: the budget when the dollars refused it, else 'error'. */
  seedFailed: optimizerSetup.enqueueActions(({ context, event }) => {
    if (event.type !== 'evaluator.failed') return;
    context.run.decideStop({ kind: 'seed', error: event.error, refusedByDollars: context.run.dollarsExhausted });
  }),
  /** Async: nothing in flight and nothing could start. */
  idleStop: optimizerSetup.enqueueActions(({ context }) => context.run.decideStop({ kind: 'idle' })),
  /** Stop now: the proposers stopped, the proposals in flight recorded as cut short. */
  cutShort: optimizerSetup.enqueueActions(({ context, enqueue }) => {
    for (const id of context.run.cutShort()) {
      const proposer = context.proposers.stopped(id);
      if (proposer !== undefined) enqueue.stopChild(proposer);
    }
  }),
  /** Batched: the step folded in task order, once every proposal in it has finished. */
  foldStep: optimizerSetup.enqueueActions(({ context, enqueue }) => {
    emitAll({ context, enqueue }, context.run.foldStep({ elapsedMsNow: elapsedMs(context) }, settingsOf(context)));
  }),
  /** A verdict (batched: its step's group decided when it can be). */
  judge: optimizerSetup.enqueueActions((args) => {
    if (args.event.type === 'proposal.judged') judgeStep(args, args.event);
  }),
  /** Async: a verdict, then what may follow it (a freed place's launch, prefetched gates, the deferred). */
  proposalJudged: optimizerSetup.enqueueActions((args) => {
    if (args.event.type !== 'proposal.judged') return;
    judgeStep(args, args.event);
    launchStep(args);
    prefetchGatesStep(args);
    releaseDeferredStep(args);
  }),
  /** Batched: a proposal's end (its step is folded once all have ended). */
  finish: optimizerSetup.enqueueActions((args) => {
    if (args.event.type === 'proposal.finished') finishStep(args, args.event);
  }),
  /** Async: a proposal's end and what follows it (proposalEndedSteps). */
  proposalEnded: optimizerSetup.enqueueActions((args) => {
    if (args.event.type === 'proposal.finished') proposalEndedSteps(args, args.event);
  }),
  /** Batched: start the next step. */
  launch: optimizerSetup.enqueueActions((args) => launchStep(args)),
  /**
   * A parent evaluation the optimizer asked for, for one proposal or a group of siblings
   * (perParent; the first pays for it): skipped on it (or failed), each proposal ends here as a
   * proposer would have ended it (the steps of its 'proposal.finished'); else each one's proposer
   * is spawned with the evaluation (ProposerInput.parentEvaluated).
   */
  parentEvaluated: optimizerSetup.enqueueActions((args) => {
    const { context, event, enqueue } = args;
    if (event.type !== 'evaluated' && event.type !== 'evaluator.failed') return;
    const next = event.type === 'evaluated' ? afterParentEvaluation(event.evaluations, settingsOf(context)) : undefined;
    for (const launch of context.run.parentAnswered(event.requestId)) {
      observe(context, (w) => watchParent(w, launch.proposal.id, elapsedMs(context)));
      const { id, step, task } = launch.proposal;
      const spend = launch.proposal.siblingOf === undefined ? addSpend(NOTHING_SPENT, event) : NOTHING_SPENT;
      const evidence = context.seen.atLaunch[id];
      delete context.seen.atLaunch[id];
      // The run events a proposer would have told its listener are the optimizer's here: emitted
      // (optimize() hands both to onEvent), in the order the proposer's would have come.
      if (event.type === 'evaluator.failed' || next === undefined) {
        if (event.type === 'evaluator.failed') emitRunEvent(args, taskErrorEvent({ step, task }, event.error));
        endedOnItsParent(args, { type: 'proposal.finished', id, spend, outcome: undefined, child: undefined, valset: undefined });
        continue;
      }
      if (next.kind === 'skip') {
        emitRunEvent(args, parentSkippedEvent(next.reason, event.evaluations, { step, task }));
        endedOnItsParent(args, { type: 'proposal.finished', id, spend, outcome: { task, status: 'skipped', reason: next.reason }, child: undefined, valset: undefined });
        continue;
      }
      enqueue.spawnChild('proposer', { id: context.proposers.spawned(id), systemId: id, input: proposerInput(context, launch, evidence, { evaluations: event.evaluations, spend, sum: next.parentSum }) });
    }
  }),
};
