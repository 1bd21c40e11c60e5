// The evaluator actor: the single owner of the run's W worker slots and of its dollar budget. It
// receives 'evaluate' and 'reflect' requests from any actor, runs them through the
// EvaluationService (slots, cache, error capture, dollar reservations) and replies to the
// requester; it tells the optimizer, its parent, once the dollars left cannot pay for another
// call. The work is a callback actor, because it is a queue of promises, not a set of states
// (one actor per metric call would cost more than the call). It takes the requests itself, as
// the evaluator's inbox (evaluatorInbox.ts): a callback actor's step is a call of its listener,
// a machine's is a macrostep. A one-state machine in front of it sends its replies with `sendTo`,
// the public way XState records who sent a message (a callback actor can only send to its parent).
import { setMaxListeners } from 'node:events';
import { forwardTo, fromCallback, sendParent, sendTo, setup, type CallbackActorLogic } from 'xstate';
import { DollarGate } from '../src/budget/dollarGate.js';
import { errorMessage } from '../src/errors/errorMessage.js';
import { EvaluationIncomplete, EvaluationService } from '../src/evaluation/evaluationService.js';
import type { CallRecord } from '../src/evaluation/callRecord.js';
import { WorkerSlots, type SlotInterval } from '../src/evaluation/workerSlots.js';
import type { EvaluationCachePolicy } from '../src/evaluation/evaluationStore.js';
import type { PricedExecutor } from '../src/executors/metricCallExecutor.js';
import type { SlotAwareLanguageModel } from '../src/lm/slotAwareModel.js';
import type { Refinement } from '../src/evaluation/refinement.js';
import type { Clock } from '../src/clock.js';
import type { ProposeNewTexts } from '../src/gepa/strategies/hookSignatures.js';
import type { ResumeWalk, WorkJournal } from '../src/gepa/core/workJournal.js';
import type { RunEvent } from '../src/gepa/core/runEvent.js';
import type { SlotPolicy } from '../src/settingValues.js';
import type { DollarsExhausted, EvaluatorReply, EvaluatorRequest, EvaluatorStats, ReplyTo, SystemicFailure } from './protocol.js';
import { EVALUATOR_INBOX } from './evaluatorInbox.js';

/** What the optimizer hands the evaluator it spawns (a custom evaluator receives the same). */
export interface EvaluatorInput {
  /** The run's example table; 'evaluate' requests name examples by their index here. */
  examples: readonly unknown[];
  /** Where metric calls run (in this process, or BullMQ jobs), with their prices. */
  executor: PricedExecutor<unknown>;
  /** The reflection model: call it with (prompt, { signal }). */
  reflectionLm: SlotAwareLanguageModel;
  /** The worker slots: the most calls in flight at once. */
  workers: number;
  /** Which queued work takes a free slot first. */
  slotPolicy: SlotPolicy;
  /** The run's clock. */
  clock: Clock;
  /** Aborted when the run stops: stop the calls in flight. */
  signal: AbortSignal;
  /** Receives every finished slot interval, when given (reports, timelines). */
  onSlotInterval?: (interval: SlotInterval) => void;
  /** Records completed work and replays it on resume (durable runs). */
  journal?: WorkJournal;
  /**
   * How far the run has walked its logged path (async resume), read when a call is reserved: past
   * it, the journal's logged work not replayed is held against the dollar budget (on it, a budget
   * raised since). The optimizer keeps the walk in its state; absent = none taken, not past it.
   */
  resumeWalk?: () => ResumeWalk;
  /** The run's dollar budget (none when absent): reserved per call here, at dispatch. */
  maxCostUsd?: number;
  /** Receives an 'error' event per failed metric call (reflection failures are the proposers' to report), and a remote executor's 'calls.rerun'. */
  onEvent?: (event: RunEvent) => void;
  /** Stop the run on the first adapter exception (OptimizeConfig.failFast). */
  failFast?: boolean;
  /** Failed calls in a row with one cause that stop the run (OptimizeConfig.maxConsecutiveFailures). */
  maxConsecutiveFailures?: number;
  /** Every failed call's error as it was thrown (an Error with the failure's message when nothing was): optimize() keeps the first, a failed run's cause. */
  onFailedCall?: (error: unknown) => void;
  /** Dollars spent before the run (the endpoint check): counted once, at the start. */
  preRunCostUsd?: number;
  /** The user's custom candidate proposer, served to 'propose' requests. */
  proposeNewTexts?: ProposeNewTexts;
  /** Receives every call that ran, once it ended (telemetry). */
  onCall?: (call: CallRecord) => void;
  /** How evaluations are reused (cacheEvaluation); default within the run only. */
  evaluationCache?: EvaluationCachePolicy;
  /** optimizeAnything's refiner: every evaluation is refined before it is answered. */
  refinement?: Refinement;
  /** The batched schedule: identical traced requests in flight together shared one call (see EvaluationServiceOptions). */
  twinsShareOneCall?: boolean;
}

/** The service's reply, handed to the machine in front of it to send on. */
type Outgoing =
  | { type: 'evaluator.reply'; replyTo: ReplyTo<EvaluatorReply>; reply: EvaluatorReply }
  | { type: 'evaluator.stats.reply'; replyTo: ReplyTo<EvaluatorStats>; reply: EvaluatorStats };

const evaluationService = fromCallback<EvaluatorRequest, EvaluatorInput>(({ input, sendBack, receive }) => {
  // A callback actor sends with a recorded sender only to its parent: the replies go there.
  function reply(replyTo: ReplyTo<EvaluatorReply>, event: EvaluatorReply): void;
  function reply(replyTo: ReplyTo<EvaluatorStats>, event: EvaluatorStats): void;
  function reply(replyTo: ReplyTo<EvaluatorReply> | ReplyTo<EvaluatorStats>, event: EvaluatorReply | EvaluatorStats): void {
    const outgoing = event.type === 'evaluator.stats' ? { type: 'evaluator.stats.reply', replyTo, reply: event } : { type: 'evaluator.reply', replyTo, reply: event };
    sendBack(outgoing as Outgoing);
  }
  // Every call in flight listens to the run's signal; W can be in the hundreds.
  setMaxListeners(0, input.signal);
  const slots = new WorkerSlots({ capacity: input.workers, clock: input.clock, policy: input.slotPolicy, onInterval: input.onSlotInterval });
  const held = () => input.journal?.heldWork?.(input.resumeWalk?.() ?? { pastLoggedPath: false, taken: 0 }).usd ?? 0;
  const dollars = input.maxCostUsd === undefined ? undefined : new DollarGate(input.maxCostUsd, () => sendBack({ type: 'dollars.exhausted' } satisfies DollarsExhausted), held);
  const service = new EvaluationService({
    examples: input.examples,
    executor: input.executor,
    reflectionLm: input.reflectionLm,
    slots,
    signal: input.signal,
    journal: input.journal,
    dollars,
    failFast: input.failFast,
    maxConsecutiveFailures: input.maxConsecutiveFailures,
    preRunCostUsd: input.preRunCostUsd,
    onRetry: (notice) => input.onEvent?.({ type: 'retry.scheduled', ...notice }),
    onFailure: (failure, channel, thrown) => {
      if (channel === 'metric') input.onEvent?.({ type: 'error', message: `metric call failed: ${failure.message}`, failure });
      input.onFailedCall?.(thrown ?? new Error(failure.message));
    },
    onSystemicFailure: (error) => {
      announceSystemic(error);
      sendBack({ type: 'stop', reason: 'error', error } satisfies SystemicFailure);
    },
    proposeNewTexts: input.proposeNewTexts,
    ...(input.onCall ? { onCall: { clock: input.clock, record: input.onCall } } : {}),
    ...(input.evaluationCache ? { cache: input.evaluationCache } : {}),
    ...(input.refinement ? { refinement: input.refinement } : {}),
    ...(input.twinsShareOneCall ? { twinsShareOneCall: true } : {}),
  });
  function announceSystemic(error: string): void {
    input.onEvent?.({ type: 'error', message: error, systemic: true });
  }
  /** Tells a requester its request could not be served, with what its calls that did run cost. */
  const failed = (requestId: number, replyTo: ReplyTo<EvaluatorReply>) => (error: unknown) => {
    // After an abort the requesters are stopping; nobody waits for an answer.
    if (input.signal.aborted) return;
    const paid = error instanceof EvaluationIncomplete ? error : { paidCalls: 0, costUsd: 0 };
    reply(replyTo, { type: 'evaluator.failed', requestId, error: errorMessage(error), paidCalls: paid.paidCalls, costUsd: paid.costUsd });
  };
  function serve(request: EvaluatorRequest): void {
    switch (request.type) {
      case 'evaluate': {
        const { requestId, replyTo } = request;
        service.evaluate(request, request.refine !== false).then((answer) => {
          // The seed's verdict travels in its reply: the optimizer folds the seed, then stops.
          if (answer.systemic !== undefined) announceSystemic(answer.systemic);
          reply(replyTo, { type: 'evaluated', requestId, ...answer });
        }, failed(requestId, replyTo));
        return;
      }
      case 'reflect': {
        const { requestId, replyTo } = request;
        service.reflect(request.prompt, request.origin, undefined, request.content).then((answer) => reply(replyTo, { type: 'reflected', requestId, ...answer }), failed(requestId, replyTo));
        return;
      }
      case 'propose': {
        const { requestId, replyTo } = request;
        service.propose(request.candidate, request.dataset, request.components, request.origin).then((answer) => reply(replyTo, { type: 'proposed', requestId, ...answer }), failed(requestId, replyTo));
        return;
      }
      case 'stats': {
        const stats = (): EvaluatorStats => ({
          type: 'evaluator.stats',
          metricCalls: service.metricCalls,
          reflectionCalls: service.reflectionCalls,
          costUsd: service.costUsd,
          busySlotMs: slots.busySlotMs(),
          maxInFlight: slots.maxInFlight,
          failures: service.failures.counts(),
          outcomes: service.failures.outcomes(),
        });
        // Answer after the messages already queued (e.g. the last proposals' reports) are processed.
        queueMicrotask(() => reply(request.replyTo, stats()));
        return;
      }
    }
  }
  receive(serve);
  // A remote executor's failover (calls run again after their worker was lost), as run events.
  const stopWatching = input.executor.onCallsRerun?.((notice) => input.onEvent?.({ type: 'calls.rerun', ...notice }));
  return () => {
    stopWatching?.();
    void service.close();
  };
});

/**
 * The evaluator as the run sees it: its service takes requests as the evaluator's inbox; replies
 * go to their `replyTo` and the budget and failure notices to the optimizer, each sent by this
 * machine, so inspection records the evaluator as their sender. A request sent to the machine
 * itself (by one that looked up 'evaluator', not the inbox) is handed on to the service.
 */
const evaluatorMachine = setup({
  types: {
    input: {} as EvaluatorInput,
    context: {} as { input: EvaluatorInput },
    events: {} as EvaluatorRequest | Outgoing | DollarsExhausted | SystemicFailure,
  },
  // Its key is the service's logic name in inspection: the report counts requests as the evaluator's.
  actors: { evaluator: evaluationService },
}).createMachine({
  context: ({ input }) => ({ input }),
  invoke: { id: 'service', systemId: EVALUATOR_INBOX, src: 'evaluator', input: ({ context }) => context.input },
  on: {
    evaluate: { actions: forwardTo('service') },
    reflect: { actions: forwardTo('service') },
    propose: { actions: forwardTo('service') },
    stats: { actions: forwardTo('service') },
    'evaluator.reply': { actions: sendTo(({ event }) => event.replyTo, ({ event }) => event.reply) },
    'evaluator.stats.reply': { actions: sendTo(({ event }) => event.replyTo, ({ event }) => event.reply) },
    'dollars.exhausted': { actions: sendParent(({ event }) => event) },
    stop: { actions: sendParent(({ event }) => event) },
  },
});

/**
 * Typed as the contract a replacement evaluator meets (`optimizerMachine.provide({ actors: {
 * evaluator } })`, a callback actor taking EvaluatorRequest and EvaluatorInput): the optimizer
 * only sends to it and receives from it, never reads its snapshot.
 */
export const evaluatorActor = evaluatorMachine as unknown as CallbackActorLogic<EvaluatorRequest, EvaluatorInput>;
