// The actor protocol's replies are typed by where they go (machines/protocol.ts): tsc checks this
// file, and each `@ts-expect-error` below fails the type check if the error it expects is gone,
// i.e. if a reply missing a field (or the wrong reply) were accepted again. At run time, the
// complete replies reach an actor typed as their `replyTo`.
import { describe, expect, test } from 'vitest';
import { createActor, fromCallback, type EventObject } from 'xstate';
import type { EvaluatorReply, EvaluatorRequest, EvaluatorStats, ReplyTo } from '../machines/protocol.js';

/** An actor that keeps every event it receives. */
function collector<E extends EventObject>() {
  const received: E[] = [];
  const actor = createActor(fromCallback<E>(({ receive }) => receive((event) => received.push(event))));
  actor.start();
  return { received, ref: actor as ReplyTo<E> };
}

describe('typed replies', () => {
  test('an evaluator.failed reply without what was paid does not type-check', () => {
    const { received, ref } = collector<EvaluatorReply>();
    const sendIncomplete = (replyTo: ReplyTo<EvaluatorReply>) =>
      // @ts-expect-error paidCalls and costUsd are missing: the proposer's spend would add NaN
      replyTo.send({ type: 'evaluator.failed', requestId: 1, error: 'refused' });
    expect(sendIncomplete).toBeTypeOf('function');
    ref.send({ type: 'evaluator.failed', requestId: 1, error: 'refused', paidCalls: 2, costUsd: 0.01 });
    expect(received).toEqual([{ type: 'evaluator.failed', requestId: 1, error: 'refused', paidCalls: 2, costUsd: 0.01 }]);
  });

  test("a request's replyTo takes only its own reply", () => {
    const { received, ref } = collector<EvaluatorStats>();
    const request: EvaluatorRequest = { type: 'stats', replyTo: ref };
    const sendWrongReply = (replyTo: ReplyTo<EvaluatorStats>) =>
      // @ts-expect-error a 'stats' request is answered with evaluator.stats, not with an evaluation
      replyTo.send({ type: 'evaluated', requestId: 1, evaluations: [], paidCalls: 0, costUsd: 0 });
    expect(sendWrongReply).toBeTypeOf('function');
    if (request.type === 'stats') request.replyTo.send({ type: 'evaluator.stats', metricCalls: 3, reflectionCalls: 1, costUsd: 0, busySlotMs: 10, maxInFlight: 2 });
    expect(received.map((e) => e.metricCalls)).toEqual([3]);
  });
});
