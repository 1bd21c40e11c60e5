// A run as OpenTelemetry spans: `gepa.run`, a `gepa.proposal` per proposal under it, and a span
// per metric call and LM call under the proposal it was for (the seed's under the run). Built
// from the run's events and the evaluation service's call records, so the machines stay unaware;
// span times are the run's injected clock, anchored to the wall time the run started at.
// Room telemetry/: imported by run/ and the command.
import { context, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { CallOrigin, CallRecord } from '../evaluation/callRecord.js';
import type { Clock } from '../clock.js';
import type { RunEvent } from '../gepa/core/runEvent.js';
import { wallTimeOn } from './wallTime.js';

export interface RunTracer {
  onEvent(event: RunEvent): void;
  onCall(call: CallRecord): void;
}

const proposalKey = (origin: CallOrigin) => `${origin.step}/${origin.task}`;

export function createRunTracer(tracer: Tracer, clock: Clock): RunTracer {
  const wall = wallTimeOn(clock);
  let run: Span | undefined;
  // Until a run span says otherwise (a tracer used without run events records every call).
  let recording = true;
  const proposals = new Map<string, Span>();
  const childOf = (span: Span | undefined) => (span ? trace.setSpan(context.active(), span) : context.active());
  const start = (name: string, parent: Span | undefined, startMs: number, kind: SpanKind = SpanKind.INTERNAL) =>
    tracer.startSpan(name, { kind, startTime: wall(startMs) }, childOf(parent));

  function endProposal(key: string, outcome: string, reason: string, staleness?: number): void {
    const span = proposals.get(key);
    if (!span) return;
    proposals.delete(key);
    span.setAttributes({ 'gepa.outcome': outcome, 'gepa.reason': reason, ...(staleness === undefined ? {} : { 'gepa.staleness': staleness }) });
    span.end(wall(clock.now()));
  }

  return {
    onEvent(event) {
      switch (event.type) {
        case 'run.started':
          run = start('gepa.run', undefined, clock.now());
          // Not recorded (no provider registered, or sampled out): neither are its children
          // (the default parent-based sampler), so none is made; the no-op costs nothing per call.
          recording = run.isRecording();
          run.setAttributes({ 'gepa.workers': event.workers, 'gepa.valset_size': event.valsetSize });
          return;
        case 'proposal.started': {
          if (!recording) return;
          const span = start('gepa.proposal', run, clock.now());
          span.setAttributes({ 'gepa.step': event.step, 'gepa.task': event.task });
          proposals.set(proposalKey(event), span);
          return;
        }
        case 'candidate.selected':
          proposals.get(proposalKey(event))?.setAttribute('gepa.parent', event.parent);
          return;
        case 'proposal.ended':
          endProposal(proposalKey(event), event.outcome, event.reason, event.staleness);
          return;
        case 'front.updated':
          run?.setAttributes({ 'gepa.best_index': event.bestIndex, 'gepa.best_score': event.bestScore, 'gepa.front_size': event.frontSize });
          return;
        case 'budget.updated':
          run?.setAttributes({ 'gepa.metric_calls': event.metricCalls, 'gepa.cost_usd': event.costUsd });
          return;
        case 'error':
          if (event.systemic) run?.setStatus({ code: SpanStatusCode.ERROR, message: event.message });
          return;
        case 'run.ended':
          // Proposals a stop cut short get no proposal.ended: they end with the run.
          for (const key of [...proposals.keys()]) endProposal(key, 'skipped', `stopped before it finished (${event.stopReason})`);
          run?.setAttribute('gepa.stop_reason', event.stopReason);
          run?.end(wall(clock.now()));
          run = undefined;
          return;
        default:
          return;
      }
    },
    onCall(call) {
      if (!recording) return;
      const parent = (call.origin && proposals.get(proposalKey(call.origin))) || run;
      let span: Span;
      if (call.channel === 'metric') {
        span = start('gepa.metric_call', parent, call.startMs);
        span.setAttributes({ 'gepa.work_kind': call.kind, 'gepa.example_id': call.exampleId, 'gepa.score': call.score, 'gepa.cost_usd': call.costUsd });
        if (call.failed) span.setStatus({ code: SpanStatusCode.ERROR });
      } else if (call.kind === 'propose') {
        span = start('gepa.propose_new_texts', parent, call.startMs);
      } else {
        // The GenAI semantic conventions: span name "{operation} {model}", the gen_ai.* attributes.
        span = start(call.model === undefined ? 'chat' : `chat ${call.model}`, parent, call.startMs, SpanKind.CLIENT);
        span.setAttributes({
          'gen_ai.operation.name': 'chat',
          'gepa.work_kind': 'reflection',
          'gepa.cost_usd': call.costUsd,
          ...(call.model === undefined ? {} : { 'gen_ai.request.model': call.model }),
          ...(call.usage ? { 'gen_ai.usage.input_tokens': call.usage.promptTokens, 'gen_ai.usage.output_tokens': call.usage.completionTokens } : {}),
        });
      }
      if (call.channel === 'lm' && call.error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: call.error });
      span.end(wall(call.endMs));
    },
  };
}
