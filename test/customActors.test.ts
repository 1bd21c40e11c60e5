// optimizerMachine.provide({ actors }) swaps an actor: here a custom evaluator that serves whole
// batches in one "remote" round trip speaks the protocol of machines/protocol.ts, and the run
// gives the same result as with the built-in evaluator.
import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, toPromise } from 'xstate';
import { optimize, optimizerMachine, type OptimizeConfig } from '../src/index.js';
import type { EvaluatorRequest } from '../machines/protocol.js';
import type { EvaluatorInput } from '../machines/evaluator.actor.js';
import type { Evaluation } from '../src/gepa/core/adapter.js';
import { KEYWORDS, toyExamples, toyTask, type ToyExample } from './support/toyTask.js';
import { systemClock } from '../src/clock.js';

describe('a custom evaluator actor', () => {
  it('serves every request and the run matches the built-in evaluator', async () => {
    const task = toyTask({ clock: systemClock });
    const trainset = toyExamples('t', KEYWORDS.slice(0, 8));
    const valset = toyExamples('v', KEYWORDS.slice(0, 5));
    const config: OptimizeConfig<ToyExample> = {
      seedCandidate: { instructions: 'Answer.' },
      trainset,
      valset,
      adapter: task.adapter,
      reflectionLm: task.reflectionLm,
      schedule: { kind: 'batched', parents: 2, perParent: 2 },
      // Stop on progress, not on calls: this evaluator has no cache, so it pays more per step.
      maxStepsWithoutImprovement: 3,
    };
    const batches: number[] = [];
    let calls = 0;
    let tableSize = 0;
    // One "remote" round trip per evaluate request, however many examples it holds.
    const batchingEvaluator = fromCallback<EvaluatorRequest, EvaluatorInput>(({ input, receive }) => {
      tableSize = input.examples.length;
      receive((request) => {
        if (request.type === 'evaluate') {
          batches.push(request.exampleIds.length);
          const signal = new AbortController().signal;
          void Promise.all(
            request.exampleIds.map((id) => task.adapter.evaluate(request.candidate, input.examples[id] as ToyExample, { captureTraces: request.captureTraces, signal })),
          ).then((evaluations: Evaluation[]) => {
            calls += evaluations.length;
            request.replyTo.send({ type: 'evaluated', requestId: request.requestId, evaluations, paidCalls: evaluations.length, costUsd: 0 });
          });
        } else if (request.type === 'reflect') {
          void Promise.resolve(task.reflectionLm(request.prompt, { signal: new AbortController().signal })).then((text) =>
            request.replyTo.send({ type: 'reflected', requestId: request.requestId, ok: true, reply: { text: String(text) }, costUsd: 0 }),
          );
        } else if (request.type === 'stats') {
          request.replyTo.send({ type: 'evaluator.stats', metricCalls: calls, reflectionCalls: 0, costUsd: 0, busySlotMs: 0, maxInFlight: 0 });
        }
      });
    });
    const machine = optimizerMachine.provide({ actors: { evaluator: batchingEvaluator } });
    const actor = createActor(machine, { input: config as OptimizeConfig<unknown> });
    actor.start();
    const custom = await toPromise(actor);
    const builtIn = await optimize(config);
    expect(batches.length).toBeGreaterThan(5);
    expect(batches[0]).toBe(valset.length);
    expect(custom.candidates).toEqual(builtIn.candidates);
    expect(custom.valSubscores).toEqual(builtIn.valSubscores);
    // This evaluator has no cache, so it may pay more; it reports what it paid.
    expect(custom.metricCalls).toBe(calls);
    // The evaluator is handed the run's one example table: the trainset and the valset, each example once.
    expect(tableSize).toBe(trainset.length + valset.length);
  });
});
