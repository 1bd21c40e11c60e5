// The optimizer's actions that enqueue others: a verdict, a proposal's end, an async fold, the
// release of children held by the launch-order wait, gates evaluated ahead, a launch, and a parent
// evaluation the optimizer asked for itself. Each asks one domain function (src/gepa/) and
// assigns, emits and sends what it answers; optimizer.machine.ts names them in its states.
import { answerReleased } from '../src/gepa/search/childAnswers.js';
import { addSpend, NOTHING_SPENT } from '../src/gepa/core/proposal.js';
import { afterParentEvaluation } from '../src/gepa/proposer/proposalSkips.js';
import { parentSkippedEvent, taskErrorEvent } from '../src/gepa/proposer/taskEvents.js';
import { releasedFromWait } from '../src/gepa/search/proposalDecisions.js';
import { gatePrefetches } from '../src/gepa/search/gatePrefetch.js';
import { nextLaunches } from '../src/gepa/search/launchRules.js';
import { rebaseExtraCalls } from '../src/gepa/search/proposalPlanner.js';
import { finish, foldInto, judge } from '../src/gepa/search/searchRun.js';
import { keepEvidence } from '../src/gepa/reflection/evidenceHistory.js';
import { watchEnd, watchLaunch, watchParent, watchVerdict } from '../src/runtimeModel/autoWatch.js';
import { autoStep, observed } from './optimizer.auto.js';
import { takeDecision } from '../src/storage/resumeOrder.js';
import { preparedOf, settingsOf } from './runWiring.js';
import { elapsedMs, spendingLimits, proposerInput, askParent, optimizerSetup } from './optimizer.setup.js';

export const optimizerActions = {
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
    enqueue.assign({ ...update, resume: taken.resume, ...observed(context, (w) => watchVerdict(w, event.id, elapsedMs(context))) });
    if (taken.logged) enqueue({ type: 'logDecision', params: taken.logged });
    for (const m of messages) enqueue.sendTo(m.id, m.message);
  }),
  /** A proposal's end: settle its reservation, record its update, stop its proposer, decide its group. */
  finish: optimizerSetup.enqueueActions(({ context, event, enqueue, self }) => {
    if (event.type !== 'proposal.finished') return;
    const answered = finish(context, event, settingsOf(context), spendingLimits(context));
    if (!answered) return;
    const taken = takeDecision(context.resume, { kind: 'finished', id: event.id });
    const { messages, ...update } = answered;
    // A strategy that reads other proposals' results: this one's parent records join the history (in launch order).
    const keep = preparedOf(context).reflection?.strategy.evidence ?? 0;
    const evidence = event.evidence && keep > 0 ? { evidence: keepEvidence(context.evidence, event.evidence, keep) } : {};
    // auto: a child judged here (rejected) times its reflection; a valset evaluation means it went on to the pool.
    const outcome = event.outcome?.status === 'skipped' ? 'skipped' : event.valset !== undefined ? 'accepted' : event.outcome ? 'rejected' : undefined;
    const watched = observed(context, (w) => watchEnd(outcome === 'rejected' ? watchVerdict(w, event.id, elapsedMs(context)) : w, event.id, outcome, event.spend.paidCalls));
    enqueue.assign({ ...update, ...evidence, ...watched, resume: taken.resume });
    if (taken.logged) enqueue({ type: 'logDecision', params: taken.logged });
    for (const m of messages) enqueue.sendTo(m.id, m.message);
    // A finished proposer stays among the children until stopped; thousands would slow every step.
    // A proposal skipped on the parent evaluation the optimizer asked for has none (XState clones
    // the snapshot even to stop a child it does not have: most async proposals late in a run).
    if (self.getSnapshot().children[event.id] !== undefined) enqueue.stopChild(event.id);
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
  /** Start what the launch rules answer (src/gepa/search/launchRules.ts): a batched step, or async proposals until the shape's K are in flight. */
  launch: optimizerSetup.enqueueActions(({ context, event, enqueue, self }) => {
    // Schedule 'auto': the shape decided (or taken from the logged path) before anything starts.
    const step = autoStep(context);
    const run = step ? { ...context, ...step.update } : context;
    if (step) {
      enqueue.assign(step.update);
      if (step.event) enqueue.emit(step.event);
      if (step.logged) enqueue({ type: 'logDecision', params: step.logged });
    }
    const next = nextLaunches(run, run.shape, { settings: settingsOf(context), table: preparedOf(context).table, limits: spendingLimits(context), afterVerdict: event.type === 'proposal.judged' });
    if (!next) return;
    const now = elapsedMs(context);
    enqueue.assign({ ...next.update, ...observed(run, (w) => next.starts.reduce((acc, s) => watchLaunch(acc, s.launch.proposal.id, now), w)) });
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
    const launch = context.parentsAsked.find((l) => l.proposal.step === event.requestId);
    if (!launch) return;
    enqueue.assign({ parentsAsked: context.parentsAsked.filter((l) => l !== launch), ...observed(context, (w) => watchParent(w, launch.proposal.id, elapsedMs(context))) });
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
