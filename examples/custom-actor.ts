// A custom evaluator actor, provided through optimizerMachine.provide({ actors: { evaluator } }):
// metric calls are batched into round trips to a "remote scoring service" (simulated here), as
// you would for a GPU server or a grading API that prefers many items per request. It speaks
// the evaluator protocol of machines/protocol.ts: evaluate -> evaluated, reflect -> reflected,
// report -> evaluator.stats. Run: npx tsx examples/custom-actor.ts [--budget 400]
import { parseArgs } from 'node:util';
import { createActor, fromCallback, toPromise } from 'xstate';
import { optimizerMachine, type Adapter, type Candidate, type Evaluation, type LmReply, type OptimizeConfig } from '../src/index.js';
import { type EvaluatorInput, type EvaluatorRequest, type EvaluatorStats } from '../src/entries/embedding.js';
import { createDemoTask, type DemoExample } from '../src/entries/demo.js';

const { values } = parseArgs({ options: { budget: { type: 'string', default: '400' } } });

/** The "remote service": one round trip scores a whole batch. Here, the demo adapter in-process. */
function createRemoteScorer(adapter: Adapter<DemoExample>, roundTripMs: number) {
  let roundTrips = 0;
  return {
    get roundTrips() {
      return roundTrips;
    },
    async scoreBatch(items: ReadonlyArray<{ candidate: Candidate; example: DemoExample }>, signal: AbortSignal): Promise<Evaluation[]> {
      roundTrips++;
      await new Promise((resolve) => setTimeout(resolve, roundTripMs));
      return Promise.all(items.map(({ candidate, example }) => adapter.evaluate(candidate, example, { captureTraces: false, signal })));
    },
  };
}

type RemoteScorer = ReturnType<typeof createRemoteScorer>;

interface Pending {
  candidate: Candidate;
  example: DemoExample;
  /** The request's count of calls sent to the service (each one is paid, whatever its answer). */
  sent: { calls: number };
  resolve: (evaluation: Evaluation) => void;
  reject: (error: unknown) => void;
}

/**
 * Collects metric calls from every request in flight and sends them in batches of up to
 * `maxBatch`, or whatever has gathered after `lingerMs`. Requests answer in their own order.
 */
function batchingEvaluator(remote: RemoteScorer, options: { maxBatch: number; lingerMs: number }) {
  return fromCallback<EvaluatorRequest, EvaluatorInput>(({ input, receive }) => {
    const stats = { metricCalls: 0, reflectionCalls: 0, costUsd: 0, busySlotMs: 0, maxInFlight: 0 };
    let queue: Pending[] = [];
    let timer: unknown;

    const flush = () => {
      if (timer !== undefined) input.clock.clearTimeout(timer);
      timer = undefined;
      const batch = queue.slice(0, options.maxBatch);
      queue = queue.slice(options.maxBatch);
      if (batch.length === 0) return;
      stats.metricCalls += batch.length;
      for (const p of batch) p.sent.calls++;
      stats.maxInFlight = Math.max(stats.maxInFlight, batch.length);
      const started = input.clock.now();
      remote.scoreBatch(batch, input.signal).then(
        (evaluations) => {
          stats.busySlotMs += input.clock.now() - started;
          batch.forEach((p, i) => p.resolve(evaluations[i] as Evaluation));
        },
        (error) => batch.forEach((p) => p.reject(error)),
      );
      if (queue.length > 0) flush();
    };
    const score = (candidate: Candidate, example: DemoExample, sent: { calls: number }) =>
      new Promise<Evaluation>((resolve, reject) => {
        queue.push({ candidate, example, sent, resolve, reject });
        if (queue.length >= options.maxBatch) flush();
        else if (timer === undefined) timer = input.clock.setTimeout(flush, options.lingerMs);
      });

    receive((request) => {
      switch (request.type) {
        case 'evaluate': {
          const { requestId, replyTo } = request;
          const examples = request.exampleIds.map((id) => input.examples[id] as DemoExample);
          const sent = { calls: 0 };
          Promise.all(examples.map((example) => score(request.candidate, example, sent))).then(
            // One Evaluation per id, in order; every call is paid (this evaluator has no cache).
            (evaluations) => replyTo.send({ type: 'evaluated', requestId, evaluations, paidCalls: evaluations.length, costUsd: 0 }),
            (error) => {
              // The calls already sent are paid even though the request failed (the budget counts them).
              if (!input.signal.aborted) replyTo.send({ type: 'evaluator.failed', requestId, error: String(error), paidCalls: sent.calls, costUsd: 0 });
            },
          );
          return;
        }
        case 'reflect': {
          const { requestId, replyTo } = request;
          stats.reflectionCalls++;
          input.reflectionLm(request.prompt, { signal: input.signal }).then(
            (raw) => {
              const reply: LmReply = typeof raw === 'string' ? { text: raw } : raw;
              stats.costUsd += reply.costUsd ?? 0;
              replyTo.send({ type: 'reflected', requestId, ok: true, reply, costUsd: reply.costUsd ?? 0 });
            },
            // A failed reflection is a skipped proposal, not a failed run.
            (error) => replyTo.send({ type: 'reflected', requestId, ok: false, error: String(error), costUsd: 0 }),
          );
          return;
        }
        case 'stats': {
          const counts: EvaluatorStats = { type: 'evaluator.stats', ...stats };
          queueMicrotask(() => request.replyTo.send(counts));
          return;
        }
      }
    });
    return () => {
      if (timer !== undefined) input.clock.clearTimeout(timer);
    };
  });
}

// The held-out testset is not an option of optimize(), which refuses fields it does not know.
const { testset: _heldOut, ...task } = createDemoTask({ seed: 0 });
const remote = createRemoteScorer(task.adapter, 10);
const machine = optimizerMachine.provide({ actors: { evaluator: batchingEvaluator(remote, { maxBatch: 16, lingerMs: 2 }) } });

const config: OptimizeConfig<DemoExample> = {
  ...task,
  maxMetricCalls: Number(values.budget),
  schedule: { kind: 'async', inFlight: 6 },
  workers: 8,
};
const actor = createActor(machine, { input: config as OptimizeConfig<unknown> });
actor.start();
const result = await toPromise(actor);

console.log(`${result.metricCalls} metric calls in ${remote.roundTrips} round trips to the scoring service`);
console.log(`best valset score ${result.bestScore.toFixed(3)} (seed ${result.valScores[0]?.toFixed(3)}), ${result.candidates.length} candidates, stopped: ${result.stopReason}`);
