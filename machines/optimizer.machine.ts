// The optimizer: owns the run. It is the only writer of the search state (pool, RNG, sampler),
// the budget ledger and the proposals' records; it evaluates the seed, asks the domain what to
// start (a P x N step at a time, or K always in flight), spawns one proposer per proposal (async:
// per proposal its parent's evaluation, which it asks for itself, lets go on), answers
// each accepted child with a valset grant or a denial, folds finished proposals into the pool
// through the domain, and stops on a budget, a stop condition, the timeout or the caller's signal.
// Its output is the OptimizeResult; its context is plain data, its wiring in the 'run' actor
// (runWiring.ts). Every GEPA rule it applies lives in src/gepa/.
import { assign, emit, sendTo } from 'xstate';
import { finalStopReason } from '../src/gepa/search/stopDecision.js';
import type { RunEvent } from '../src/gepa/core/runEvent.js';
import type { EvaluatorRequest } from './protocol.js';
import { evaluatorInput, stopSignalsInput } from './runInputs.js';
import { preparedOf, settingsOf, wiringOf } from './runWiring.js';
import { SEED_REQUEST, elapsedMs, builtInProposer, initialContext, optimizerSetup } from './optimizer.setup.js';
import { optimizerActions } from './optimizer.actions.js';

export type { OptimizerContext, OptimizerEvent } from './optimizer.setup.js';

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
      entry: sendTo('evaluator', ({ context, self }): EvaluatorRequest => ({ type: 'reflect', requestId: SEED_REQUEST, replyTo: self, prompt: preparedOf(context).seedless?.prompt ?? '' })),
      on: {
        // No seed written (the call failed, no text): the run stops with 'error' after evaluating
        // the placeholder, so that its result still has a candidate 0.
        reflected: { target: 'seeding', actions: 'seedWritten' },
        'evaluator.failed': { target: 'stopping', actions: 'seedFailed' },
      },
    },
    seeding: {
      entry: [
        'reserveSeed',
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
    finishing: {
      entry: sendTo('evaluator', ({ self }): EvaluatorRequest => ({ type: 'stats', replyTo: self })),
      on: {
        // Too late to stop: the result is being assembled.
        stop: {},
        'evaluator.stats': {
          target: 'done',
          actions: [assign({ stats: ({ event }) => event }), emit(({ context }): RunEvent => ({ type: 'run.ended', stopReason: finalStopReason(context.run) }))],
        },
      },
    },
    done: { type: 'final' },
  },
  output: ({ context }) => context.run.result(context.stats, { elapsedMs: elapsedMs(context), workers: settingsOf(context).workers }),
});
