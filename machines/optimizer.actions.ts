// The optimizer's named actions: every change to the run's state (context.run, a RunState held by
// reference: src/gepa/search/runState.ts) happens here, each action calling one of its methods
// (a moment of the run, decided by the domain in src/gepa/) and emitting, sending, spawning or
// raising what it answers. optimizer.machine.ts names them in its states.
import { addSpend, NOTHING_SPENT } from '../src/gepa/core/proposal.js';
import { afterParentEvaluation } from '../src/gepa/proposer/proposalSkips.js';
import { parentSkippedEvent, taskErrorEvent } from '../src/gepa/proposer/taskEvents.js';
import { takeDecision } from '../src/storage/resumeOrder.js';
import { preparedOf, settingsOf } from './runWiring.js';
import { elapsedMs, spendingLimits, proposerInput, askParent, optimizerSetup } from './optimizer.setup.js';

export const optimizerActions = {
  /** A stop asked for (the caller's signal, the timeout, a drain, a systemic failure): the stop decision told. */
  stopRequested: optimizerSetup.enqueueActions(({ context, event }) => {
    if (event.type !== 'stop') return;
    context.run.decideStop(event.graceful === true ? { kind: 'request', reason: event.reason, graceful: true } : { kind: 'request', reason: event.reason, graceful: false, error: event.error });
  }),
  /** The evaluator said the dollars left cannot pay for another call: nothing more is planned. */
  dollarsRanOut: optimizerSetup.enqueueActions(({ context }) => context.run.dollarsRanOut()),
  /** Seedless: the reflection model's answer read as the first candidate (or the stop decision's, when it wrote none). */
  seedWritten: optimizerSetup.enqueueActions(({ context, event, enqueue }) => {
    if (event.type !== 'reflected') return;
    for (const e of context.run.seedWritten(preparedOf(context).seedless?.component ?? '', event)) enqueue.emit(e);
  }),
  /** The seed's valset evaluation reserved before it is asked for. */
  reserveSeed: optimizerSetup.enqueueActions(({ context }) => context.run.reserveSeed(preparedOf(context).table.valIds.length)),
  /** The seed's evaluation folded in: the first fold, which asks the stop decision. */
  foldSeed: optimizerSetup.enqueueActions(({ context, event, enqueue }) => {
    if (event.type !== 'evaluated') return;
    for (const e of context.run.foldSeed(settingsOf(context), event, { elapsedMsNow: elapsedMs(context) })) enqueue.emit(e);
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
    for (const id of context.run.cutShort()) enqueue.stopChild(id);
  }),
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
    const messages = context.run.judge(event, settingsOf(context), spendingLimits(context));
    if (!messages) return;
    // The walk of the logged path one further; off the path, the decision is logged (logDecision).
    const taken = takeDecision(context.resume, { kind: 'judged', id: event.id });
    enqueue.assign({ resume: taken.resume });
    if (taken.logged) enqueue({ type: 'logDecision', params: taken.logged });
    for (const m of messages) enqueue.sendTo(m.id, m.message);
  }),
  /** A proposal's end: settle its reservation, record its update, stop its proposer, decide its group. */
  finish: optimizerSetup.enqueueActions(({ context, event, enqueue, self }) => {
    if (event.type !== 'proposal.finished') return;
    const messages = context.run.finish(event, settingsOf(context), spendingLimits(context));
    if (!messages) return;
    const taken = takeDecision(context.resume, { kind: 'finished', id: event.id });
    enqueue.assign({ resume: taken.resume });
    if (taken.logged) enqueue({ type: 'logDecision', params: taken.logged });
    for (const m of messages) enqueue.sendTo(m.id, m.message);
    // A finished proposer stays among the children until stopped; thousands would slow every step.
    // A proposal skipped on the parent evaluation the optimizer asked for has none (XState clones
    // the snapshot even to stop a child it does not have: most async proposals late in a run).
    if (self.getSnapshot().children[event.id] !== undefined) enqueue.stopChild(event.id);
  }),
  /** Async: a finished proposal joins the pool the moment it finishes. */
  foldOne: optimizerSetup.enqueueActions(({ context, event, enqueue }) => {
    if (event.type !== 'proposal.finished') return;
    for (const e of context.run.foldOne(event.id, { elapsedMsNow: elapsedMs(context) }, settingsOf(context))) enqueue.emit(e);
  }),
  /** Batched: the step folded in task order, once every proposal in it has finished. */
  foldStep: optimizerSetup.enqueueActions(({ context, enqueue }) => {
    for (const e of context.run.foldStep({ elapsedMsNow: elapsedMs(context) }, settingsOf(context))) enqueue.emit(e);
  }),
  /** Async, rebaseWait: children that waited for the valset evaluations just folded are decided now, against the pool with them in it. */
  releaseHeld: optimizerSetup.enqueueActions(({ context, enqueue }) => {
    for (const m of context.run.releaseHeld(settingsOf(context), spendingLimits(context))) enqueue.sendTo(m.id, m.message);
  }),
  /** Async, speculate 'rebase-gate': held children waiting on one valset evaluation evaluate their possible rebase gates ahead. */
  prefetchGates: optimizerSetup.enqueueActions(({ context, enqueue }) => {
    for (const m of context.run.prefetchGates(settingsOf(context))) enqueue.sendTo(m.id, m.message);
  }),
  /** Start what the launch rules answer (src/gepa/search/launchRules.ts): a batched step, or async proposals until the shape's K are in flight. */
  launch: optimizerSetup.enqueueActions(({ context, event, enqueue, self }) => {
    const next = context.run.launch({ settings: settingsOf(context), table: preparedOf(context).table, limits: spendingLimits(context), afterVerdict: event.type === 'proposal.judged' });
    if (!next) return;
    for (const e of next.events) enqueue.emit(e);
    for (const { launch, optimizerAsksParent } of next.starts) {
      if (!optimizerAsksParent) {
        enqueue.spawnChild('proposer', { id: launch.proposal.id, input: proposerInput(context, launch) });
        continue;
      }
      // Where the proposer would have started (its start is deferred like these sends): its
      // run event, then its request.
      const { started, request } = askParent(launch, proposerInput(context, launch), self);
      enqueue.emit(started);
      enqueue.sendTo('evaluator', request);
    }
    if (next.budget) enqueue.emit(next.budget);
  }),
  /**
   * A parent evaluation the optimizer asked for: skipped on it (or failed), the proposal ends
   * here as a proposer would have ended it (its 'proposal.finished', raised); else its proposer
   * is spawned with the evaluation (ProposerInput.parentEvaluated).
   */
  parentEvaluated: optimizerSetup.enqueueActions(({ context, event, enqueue }) => {
    if (event.type !== 'evaluated' && event.type !== 'evaluator.failed') return;
    const launch = context.run.parentAnswered(event.requestId);
    if (!launch) return;
    const input = proposerInput(context, launch);
    const { id, step, task } = launch.proposal;
    const spend = addSpend(NOTHING_SPENT, event);
    // The run events a proposer would have told its listener are the optimizer's here: emitted
    // (optimize() hands both to onEvent), in the order the proposer's would have come.
    if (event.type === 'evaluator.failed') {
      enqueue.emit(taskErrorEvent({ step, task }, event.error));
      enqueue.raise({ type: 'proposal.finished', id, spend, outcome: undefined, child: undefined, valset: undefined });
      return;
    }
    const next = afterParentEvaluation(event.evaluations, input);
    if (next.kind === 'skip') {
      enqueue.emit(parentSkippedEvent(next.reason, event.evaluations, { step, task }));
      enqueue.raise({ type: 'proposal.finished', id, spend, outcome: { task, status: 'skipped', reason: next.reason }, child: undefined, valset: undefined });
      return;
    }
    enqueue.spawnChild('proposer', { id, input: { ...input, parentEvaluated: { evaluations: event.evaluations, spend, sum: next.parentSum } } });
  }),
};
