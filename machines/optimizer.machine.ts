// The optimizer: owns the run. It is the only writer of the search state (pool, RNG, sampler),
// the budget ledger and the proposals' records; it evaluates the seed, asks the domain what to
// start (a P x N step at a time, or K always in flight), spawns one proposer per proposal that
// goes on (a reflective proposal's parent evaluation, which it asks for itself, says so), answers
// each accepted child with a valset grant or a denial, folds finished proposals into the pool
// through the domain, and stops on a budget, a stop condition, the timeout or the caller's signal.
// Its output is the OptimizeResult; its context is plain data, its wiring in the 'run' actor
// (runWiring.ts). Every GEPA rule it applies lives in src/gepa/.
import { emit, enqueueActions, sendTo } from 'xstate';
import { seedWritten } from '../src/gepa/search/searchRun.js';
import { finalStopReason } from '../src/gepa/search/stopDecision.js';
import type { RunEvent } from '../src/gepa/core/runEvent.js';
import type { EvaluatorRequest } from './protocol.js';
import { evaluatorInbox } from './evaluatorInbox.js';
import { evaluatorInput, stopSignalsInput } from './runInputs.js';
import { preparedOf, settingsOf, wiringOf } from './runWiring.js';
import { SEED_REQUEST, elapsedMs, builtInProposer, holdoutRequestId, initialContext, optimizerSetup, type OptimizerContext, type OptimizerEvent } from './optimizer.setup.js';
import { optimizerActions } from './optimizer.actions.js';

export type { OptimizerContext, OptimizerEvent } from './optimizer.setup.js';

/** A seedless run's reflection reply read by the domain: the seed, a retry for its length, or the stop. */
const writtenSeedOf = (context: OptimizerContext, event: Extract<OptimizerEvent, { type: 'reflected' }>) =>
  seedWritten(context.run, preparedOf(context).seedless?.component ?? '', event, settingsOf(context).maxCandidateLength);

// The enqueueing actions (optimizer.actions.ts) are typed against the setup's named ones, which they enqueue.
export const optimizerMachine = optimizerSetup.extend({ actions: optimizerActions }).createMachine({
  id: 'optimizer',
  context: ({ input, spawn, self }) => initialContext(spawn('run', { id: 'run', input }), builtInProposer(self)),
  invoke: [
    {
      id: 'evaluator',
      systemId: 'evaluator',
      src: 'evaluator',
      // The dollar gate holds logged work back once the run is past its logged path: it reads the optimizer's state.
      input: ({ context }) => evaluatorInput(preparedOf(context), wiringOf(context).abort.signal, () => context.walk.walk()),
    },
    { src: 'stopSignals', input: ({ context }) => stopSignalsInput(preparedOf(context)) },
  ],
  on: {
    // The stop decision takes a drain's reason unless one is set, and an abort's in any case.
    stop: [{ guard: ({ event }) => event.graceful === true, actions: 'stopRequested' }, { target: '.stopping', actions: 'stopRequested' }],
    'dollars.exhausted': { actions: 'dollarsRanOut' },
  },
  initial: 'starting',
  states: {
    starting: {
      always: [{ guard: 'seedless', target: 'writingSeed' }, { target: 'seeding' }],
    },
    // Seedless: the reflection model writes the first candidate (a reflection call like any other:
    // counted, paid, logged; a resumed run replays it from its log instead of asking again).
    writingSeed: {
      // The seedless prompt, or (maxCandidateLength) the one that sends a seed over the limit back, once.
      entry: sendTo(evaluatorInbox, ({ context, self }): EvaluatorRequest => ({ type: 'reflect', requestId: SEED_REQUEST, replyTo: self, prompt: context.run.seedRetry ?? preparedOf(context).seedless?.prompt ?? '' })),
      on: {
        // No seed written (the call failed, no text, over maxCandidateLength after its retry): the
        // run stops with 'error' after evaluating the placeholder, so that its result still has a candidate 0.
        reflected: [
          // Over maxCandidateLength the first time: sent back (writingSeed's entry asks with the retry prompt).
          { guard: ({ context, event }) => context.run.seedRetry === undefined && writtenSeedOf(context, event).update.seedRetry !== undefined, target: 'writingSeed', reenter: true, actions: 'seedWritten' },
          { target: 'seeding', actions: 'seedWritten' },
        ],
        'evaluator.failed': { target: 'stopping', actions: 'seedFailed' },
      },
    },
    seeding: {
      entry: [
        'reserveSeed',
        emit(({ context }): RunEvent => ({ type: 'run.started', workers: settingsOf(context).workers, valsetSize: preparedOf(context).table.valIds.length })),
        sendTo(evaluatorInbox, ({ context, self }): EvaluatorRequest => ({
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
        evaluated: { target: 'deciding', actions: 'foldSeed' },
        // A seed call the dollar budget could not pay even with nothing else in flight: the budget ends the run.
        'evaluator.failed': { target: 'stopping', actions: 'seedFailed' },
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
        // A reflective proposal's parent evaluation, asked for by the optimizer (parentEvaluated).
        evaluated: { actions: 'parentEvaluated' },
        'evaluator.failed': { actions: 'parentEvaluated' },
        'proposal.judged': { actions: 'judge' },
        'proposal.finished': { actions: 'finish' },
      },
      always: { guard: 'stepFinished', target: 'deciding', actions: 'foldStep' },
    },
    // Async schedule: K proposals always in flight; each is folded the moment it finishes.
    flowing: {
      entry: 'launch',
      on: {
        evaluated: { actions: 'parentEvaluated' },
        'evaluator.failed': { actions: 'parentEvaluated' },
        'proposal.judged': [{ guard: 'outOfTurn', actions: 'defer' }, { actions: 'proposalJudged' }],
        'proposal.finished': [{ guard: 'outOfTurn', actions: 'defer' }, { actions: 'proposalEnded' }],
      },
      always: [
        { guard: 'hasStopReason', target: 'draining' },
        { guard: 'idle', target: 'finishing', actions: 'idleStop' },
      ],
    },
    // Nothing new starts; proposals in flight finish and are folded.
    draining: {
      on: {
        evaluated: { actions: 'parentEvaluated' },
        'evaluator.failed': { actions: 'parentEvaluated' },
        'proposal.judged': [{ guard: 'outOfTurn', actions: 'defer' }, { actions: 'proposalJudged' }],
        'proposal.finished': [{ guard: 'outOfTurn', actions: 'defer' }, { actions: 'proposalEnded' }],
      },
      always: { guard: 'idle', target: 'finishing' },
    },
    // Stop now: abort every call in flight and stop the proposers; their work is not folded.
    stopping: {
      entry: ['abortCalls', 'cutShort'],
      on: { stop: {} },
      always: 'finishing',
    },
    // With a holdout set, its scoring first (the top candidates of the front, on calls held from the start); then the evaluator's counts.
    finishing: {
      entry: enqueueActions(({ context, self, system, enqueue }) => {
        const asks = context.run.startHoldout(settingsOf(context));
        const exampleIds = preparedOf(context).table.holdoutIds ?? [];
        asks.forEach((ask, i) =>
          enqueue.sendTo(evaluatorInbox({ system }), { type: 'evaluate', requestId: holdoutRequestId(i), replyTo: self, ...ask, exampleIds, captureTraces: false, kind: 'valset', refine: false } satisfies EvaluatorRequest),
        );
        if (asks.length === 0) enqueue.sendTo(evaluatorInbox({ system }), { type: 'stats', replyTo: self } satisfies EvaluatorRequest);
      }),
      on: {
        // Too late to stop the run: the result is being assembled; an abort cuts the holdout's scoring short.
        stop: {
          guard: ({ context, event }) => event.graceful !== true && (context.run.holdout?.pending ?? 0) > 0,
          actions: ['abortCalls', 'holdoutCutShort', sendTo(evaluatorInbox, ({ self }): EvaluatorRequest => ({ type: 'stats', replyTo: self }))],
        },
        evaluated: { guard: 'holdoutReply', actions: 'holdoutReplied' },
        'evaluator.failed': { guard: 'holdoutReply', actions: 'holdoutReplied' },
        // The one failure rule, asked once over what the run and the evaluator counted: a failed run's reason becomes 'error'.
        'evaluator.stats': {
          target: 'done',
          actions: enqueueActions(({ context, event, enqueue }) => {
            enqueue.assign({ stats: event });
            for (const e of context.run.judgeRun({ failures: event.failures, outcomes: event.outcomes, failFast: settingsOf(context).failFast })) enqueue.emit(e);
            enqueue.emit({ type: 'run.ended', stopReason: finalStopReason(context.run) });
          }),
        },
      },
    },
    done: { type: 'final' },
  },
  output: ({ context }) => ({
    ...context.run.result(context.stats, { elapsedMs: elapsedMs(context), workers: settingsOf(context).workers }),
    ...(context.seen.auto ? { scheduleDecisions: context.seen.auto.decisions } : {}),
  }),
});
