// The optimizer machine on its own: built with stub actors (optimizerMachine.provide) on a
// simulated clock, from a plain OptimizeConfig, one behaviour per test. The stub evaluator
// answers the seed and the end-of-run report; each stub proposer finishes after a set time,
// paying a set number of calls, so every figure below can be counted by hand.
import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, SimulatedClock, toPromise } from 'xstate';
import type { EvaluatorInput } from '../machines/evaluator.actor.js';
import type { EvaluatorRequest, ProposerDecision } from '../machines/protocol.js';
import type { ProposerInput } from '../machines/proposer.machine.js';
import { runOnSimulatedClock, steppingClock, type SteppingClock } from '../src/clock.js';
import { optimizerMachine, type OptimizeConfig } from '../src/index.js';
import type { OptimizeResult } from '../src/gepa/core/optimizeResult.js';
import type { RunEvent } from '../src/gepa/core/runEvent.js';
import type { ScheduleDecision, WorkJournal } from '../src/gepa/core/workJournal.js';
import { KEYWORDS, toyExamples, toyTask, type ToyExample } from './support/toyTask.js';

interface StubRun {
  /** The config's schedule, budget and signals (given the run's clock, to schedule signals on). */
  config: (clock: SteppingClock) => Partial<OptimizeConfig<ToyExample>>;
  /** When each proposer finishes (simulated ms after it starts), and what it pays. */
  proposer?: (input: ProposerInput) => { ms: number; paidCalls: number };
  /** The seed's reply: every call failed when set. */
  seedSystemic?: string;
}

// Valset of 2, minibatch of 1: a reflective proposal's worst case is 2 * 1 + 2 = 4 calls.
const VALSET = toyExamples('v', KEYWORDS.slice(0, 2));

async function runStubbed(run: StubRun): Promise<{ result: OptimizeResult; events: RunEvent[]; started: string[]; stopped: string[]; timeline: string[] }> {
  const clock = steppingClock(new SimulatedClock());
  const task = toyTask({ clock });
  const started: string[] = [];
  const stopped: string[] = [];
  /** Proposers' stops and the run's events, in the order they happened. */
  const timeline: string[] = [];
  const evaluator = fromCallback<EvaluatorRequest, EvaluatorInput>(({ receive }) => {
    receive((request) => {
      if (request.type === 'evaluate') {
        const evaluations = request.exampleIds.map(() => ({ score: 0.5, output: '' }));
        const reply = { type: 'evaluated' as const, requestId: request.requestId, evaluations, paidCalls: evaluations.length, costUsd: 0 };
        void Promise.resolve().then(() => request.replyTo.send(run.seedSystemic === undefined ? reply : { ...reply, systemic: run.seedSystemic }));
      } else if (request.type === 'stats') {
        request.replyTo.send({ type: 'evaluator.stats', metricCalls: 0, reflectionCalls: 0, costUsd: 0, busySlotMs: 0, maxInFlight: 0 });
      }
    });
  });
  const proposer = fromCallback<ProposerDecision, ProposerInput>(({ input, sendBack }) => {
    started.push(input.id);
    const { ms, paidCalls } = run.proposer?.(input) ?? { ms: 10, paidCalls: 4 };
    const spend = { paidCalls, reflectionCalls: 0, reflectionCostUsd: 0, costUsd: 0 };
    const timer = clock.setTimeout(() => sendBack({ type: 'proposal.finished', id: input.id, spend, outcome: { task: input.task, status: 'skipped', reason: 'stub' } }), ms);
    return () => {
      stopped.push(input.id);
      timeline.push(`stopped ${input.id}`);
      clock.clearTimeout(timer);
    };
  });
  const config: OptimizeConfig<ToyExample> = {
    seedCandidate: { instructions: 'Answer.' },
    trainset: toyExamples('t', KEYWORDS.slice(0, 4)),
    valset: VALSET,
    adapter: task.adapter,
    reflectionLm: task.reflectionLm,
    reflectionMinibatchSize: 1,
    clock,
    telemetry: false,
    ...run.config(clock),
  };
  const actor = createActor(optimizerMachine.provide({ actors: { evaluator, proposer } }), { input: config as OptimizeConfig<unknown>, clock });
  const events: RunEvent[] = [];
  actor.on('*', (event) => {
    events.push(event as RunEvent);
    timeline.push(event.type);
  });
  const done = toPromise(actor);
  actor.start();
  const result = await runOnSimulatedClock(clock, done);
  return { result, events, started, stopped, timeline };
}

const abortAt = (clock: SteppingClock, ms: number): AbortSignal => {
  const controller = new AbortController();
  clock.setTimeout(() => controller.abort(), ms);
  return controller.signal;
};

describe('the optimizer machine, with stub actors', () => {
  it('drain: starts nothing new after the drain signal, and folds what was in flight', async () => {
    // Two in flight, 10 ms each: p1 p2 start at 0, p3 p4 at 10, p5 p6 at 20; the drain comes at 25.
    const { result, started } = await runStubbed({ config: (clock) => ({ schedule: { kind: 'async', inFlight: 2 }, maxMetricCalls: 1_000, drainSignal: abortAt(clock, 25) }) });
    expect(result.stopReason).toBe('stopped');
    expect(started).toEqual(['p1-0', 'p2-0', 'p3-0', 'p4-0', 'p5-0', 'p6-0']);
    // p5 and p6 finished at 30 and were folded like the others.
    expect(result.proposals.map((r) => `${r.step}:${r.outcome}:${r.reason}`)).toEqual(['1:skipped:stub', '2:skipped:stub', '3:skipped:stub', '4:skipped:stub', '5:skipped:stub', '6:skipped:stub']);
    expect(result.elapsedMs).toBe(30);
  });

  it("stop: the caller's signal stops at once; proposals in flight are stopped and recorded as skipped", async () => {
    const { result, started, stopped, timeline } = await runStubbed({ config: (clock) => ({ schedule: { kind: 'async', inFlight: 2 }, maxMetricCalls: 1_000, signal: abortAt(clock, 25) }) });
    expect(result.stopReason).toBe('aborted');
    expect(started).toEqual(['p1-0', 'p2-0', 'p3-0', 'p4-0', 'p5-0', 'p6-0']);
    expect(result.proposals.map((r) => `${r.step}:${r.reason}`)).toEqual(['1:stub', '2:stub', '3:stub', '4:stub', '5:stopped before it finished (aborted)', '6:stopped before it finished (aborted)']);
    expect(stopped.slice(-2)).toEqual(['p5-0', 'p6-0']);
    // Stopped by the stop itself, before the run ends (not only when the finished run stops its children).
    expect(timeline.indexOf('stopped p5-0')).toBeLessThan(timeline.indexOf('run.ended'));
    expect(timeline.indexOf('stopped p6-0')).toBeLessThan(timeline.indexOf('run.ended'));
    expect(result.elapsedMs).toBe(25);
  });

  it('defer (async resume): a report out of its logged turn waits until the report before it is taken', async () => {
    // The logged path says p1 finished before p2; here p2 finishes first (at 5 ms, p1 at 20).
    const path: ScheduleDecision[] = [
      { kind: 'finished', id: 'p1-0' },
      { kind: 'finished', id: 'p2-0' },
    ];
    const logged: string[] = [];
    const journal: WorkJournal = {
      replayEvaluation: () => undefined,
      recordEvaluation: () => {},
      replayReflection: () => undefined,
      recordReflection: () => {},
      loggedPath: () => path,
      recordDecision: (d) => void logged.push(d.id),
      heldWork: () => ({ calls: 0, usd: 0 }),
    };
    const { result } = await runStubbed({
      config: () => ({ schedule: { kind: 'async', inFlight: 2 }, maxMetricCalls: 2 + 2 * 4, journal }),
      proposer: (input) => ({ ms: input.id === 'p1-0' ? 20 : 5, paidCalls: 4 }),
    });
    // Both decisions were the path's: none was logged again, and p1 was folded first although p2 finished first.
    expect(logged).toEqual([]);
    expect(result.proposals.map((r) => r.step)).toEqual([1, 2]);
    expect(result.stopReason).toBe('maxMetricCalls');
  });

  it('a failing seed evaluation ends the run with its cause, and no proposal starts', async () => {
    const { result, events, started } = await runStubbed({ config: () => ({ maxMetricCalls: 100 }), seedSystemic: 'every call failed: connection refused' });
    expect([result.stopReason, result.error]).toEqual(['error', 'every call failed: connection refused']);
    expect(started).toEqual([]);
    expect(events.filter((e) => e.type === 'step.started')).toEqual([]);
    expect(result.candidates).toHaveLength(1);
  });

  it('budget narrowing: the last batched step gets the tasks the budget can still reserve', async () => {
    // Seed 2 calls, then 2x2 steps of tasks at 4 calls each: 2 + 4 * 4 + 3 * 4 = 30 pays for a full step and three tasks.
    const { result, events } = await runStubbed({ config: () => ({ schedule: { kind: 'batched', parents: 2, perParent: 2 }, maxMetricCalls: 30 }) });
    expect(events.filter((e) => e.type === 'step.started').map((e) => e.type === 'step.started' && e.tasks)).toEqual([4, 3]);
    const budgets = events.filter((e) => e.type === 'budget.updated');
    expect(budgets.map((e) => e.type === 'budget.updated' && `${e.metricCalls}+${e.reserved}`)).toEqual(['2+0', '2+16', '18+0', '18+12', '30+0']);
    expect(result.stopReason).toBe('maxMetricCalls');
  });
});
