// The run's spans as runTracer builds them from run events and call records, on XState's
// SimulatedClock: nesting (run > proposal > call; the seed's calls under the run), durations on
// the injected clock, the GenAI attributes of LM calls, and proposals a stop cut short ending
// with the run.
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { createRunTracer } from '../src/telemetry/runTracer.js';

const ms = ([seconds, nanos]: [number, number]) => seconds * 1000 + nanos / 1e6;
const duration = (span: ReadableSpan) => ms(span.duration);

function traced() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const clock = new SimulatedClock();
  const tracer = createRunTracer(provider.getTracer('test'), clock);
  const spans = () => exporter.getFinishedSpans();
  const named = (name: string) => spans().filter((s) => s.name === name);
  return { clock, tracer, spans, named };
}

describe('runTracer', () => {
  it('nests proposal spans under the run and call spans under their proposal, timed on the injected clock', () => {
    const { clock, tracer, named } = traced();
    tracer.onEvent({ type: 'run.started', workers: 4, valsetSize: 3 });
    tracer.onCall({ channel: 'metric', kind: 'seed', startMs: 0, endMs: 40, exampleId: 0, score: 1, failed: false, costUsd: 0 });
    clock.increment(100);
    tracer.onEvent({ type: 'proposal.started', step: 1, task: 0 });
    tracer.onEvent({ type: 'candidate.selected', step: 1, task: 0, parent: 0 });
    tracer.onCall({ channel: 'metric', kind: 'parent', origin: { step: 1, task: 0 }, startMs: 100, endMs: 130, exampleId: 2, score: 0, failed: true, costUsd: 0.01 });
    tracer.onCall({ channel: 'lm', kind: 'reflection', origin: { step: 1, task: 0 }, startMs: 130, endMs: 380, model: 'gpt-x', usage: { promptTokens: 120, completionTokens: 30 }, costUsd: 0.002 });
    clock.increment(400);
    tracer.onEvent({ type: 'proposal.ended', step: 1, task: 0, outcome: 'accepted', reason: 'accepted', staleness: 2 });
    tracer.onEvent({ type: 'front.updated', bestIndex: 1, bestScore: 0.75, frontSize: 2 });
    clock.increment(10);
    tracer.onEvent({ type: 'run.ended', stopReason: 'maxMetricCalls' });

    const [run] = named('gepa.run');
    const [proposal] = named('gepa.proposal');
    const [seedCall, parentCall] = named('gepa.metric_call');
    const [lm] = named('chat gpt-x');
    expect(run?.parentSpanContext).toBeUndefined();
    expect(duration(run!)).toBeCloseTo(510, 3);
    expect(run?.attributes).toMatchObject({ 'gepa.workers': 4, 'gepa.best_score': 0.75, 'gepa.stop_reason': 'maxMetricCalls' });
    expect(proposal?.parentSpanContext?.spanId).toBe(run?.spanContext().spanId);
    expect(duration(proposal!)).toBeCloseTo(400, 3);
    expect(proposal?.attributes).toEqual({ 'gepa.step': 1, 'gepa.task': 0, 'gepa.parent': 0, 'gepa.outcome': 'accepted', 'gepa.reason': 'accepted', 'gepa.staleness': 2 });
    expect(seedCall?.parentSpanContext?.spanId).toBe(run?.spanContext().spanId);
    expect(parentCall?.parentSpanContext?.spanId).toBe(proposal?.spanContext().spanId);
    expect(duration(parentCall!)).toBeCloseTo(30, 3);
    expect(parentCall?.status.code).toBe(2); // ERROR: a failed metric call
    // Start times keep the clock's offsets: the parent call started 100 ms after the seed call.
    expect(ms(parentCall!.startTime) - ms(seedCall!.startTime)).toBeCloseTo(100, 3);
    expect(lm?.parentSpanContext?.spanId).toBe(proposal?.spanContext().spanId);
    expect(duration(lm!)).toBeCloseTo(250, 3);
    expect(lm?.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-x', 'gen_ai.usage.input_tokens': 120, 'gen_ai.usage.output_tokens': 30 });
  });

  it('ends the proposals a stop cut short with the run, as skipped', () => {
    const { clock, tracer, named } = traced();
    tracer.onEvent({ type: 'run.started', workers: 2, valsetSize: 1 });
    tracer.onEvent({ type: 'proposal.started', step: 3, task: 1 });
    clock.increment(50);
    expect(named('gepa.proposal')).toEqual([]);
    tracer.onEvent({ type: 'run.ended', stopReason: 'timeout' });
    const [proposal] = named('gepa.proposal');
    expect(proposal?.attributes).toMatchObject({ 'gepa.outcome': 'skipped', 'gepa.reason': 'stopped before it finished (timeout)' });
    expect(duration(proposal!)).toBeCloseTo(50, 3);
    expect(named('gepa.run')).toHaveLength(1);
  });
});
