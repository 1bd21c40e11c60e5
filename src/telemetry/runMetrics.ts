// A run's OpenTelemetry metrics: metric and LM calls, dollars, tokens, the best valset score and
// busy slot-time (its rate over time is the mean number of busy slots), recorded through
// @opentelemetry/api's meter, a no-op until the application registers a MeterProvider.
import type { Meter } from '@opentelemetry/api';
import type { CallRecord } from '../evaluation/callRecord.js';
import type { RunEvent } from '../gepa/core/runEvent.js';
import type { SlotInterval } from '../evaluation/workerSlots.js';

export interface RunMetrics {
  onEvent(event: RunEvent): void;
  onCall(call: CallRecord): void;
  onSlotInterval(interval: SlotInterval): void;
}

export function createRunMetrics(meter: Meter): RunMetrics {
  const metricCalls = meter.createCounter('gepa.metric_calls', { description: 'adapter.evaluate calls made (cache hits and replays excluded)' });
  const lmCalls = meter.createCounter('gepa.lm_calls', { description: 'reflection LM calls and proposeNewTexts calls made' });
  const cost = meter.createCounter('gepa.cost', { unit: 'USD', description: 'dollars the calls cost' });
  const tokens = meter.createHistogram('gen_ai.client.token.usage', { unit: '{token}', description: 'tokens per LM call (GenAI semantic conventions)' });
  const bestScore = meter.createGauge('gepa.best_score', { description: 'best mean valset score in the pool' });
  const workers = meter.createGauge('gepa.workers', { description: 'worker slots of the run' });
  const busy = meter.createCounter('gepa.slots.busy_time', { unit: 'ms', description: 'slot-time spent on work; its rate is the mean number of busy slots' });
  return {
    onEvent(event) {
      if (event.type === 'front.updated') bestScore.record(event.bestScore);
      else if (event.type === 'run.started') workers.record(event.workers);
    },
    onCall(call) {
      if (call.costUsd > 0) cost.add(call.costUsd, { 'gepa.channel': call.channel });
      if (call.channel === 'metric') {
        metricCalls.add(1, { 'gepa.work_kind': call.kind, 'gepa.failed': call.failed });
        return;
      }
      lmCalls.add(1, { 'gepa.work_kind': call.kind, 'gepa.failed': call.error !== undefined });
      if (!call.usage) return;
      const model = call.model === undefined ? {} : { 'gen_ai.request.model': call.model };
      tokens.record(call.usage.promptTokens, { 'gen_ai.operation.name': 'chat', 'gen_ai.token.type': 'input', ...model });
      tokens.record(call.usage.completionTokens, { 'gen_ai.operation.name': 'chat', 'gen_ai.token.type': 'output', ...model });
    },
    onSlotInterval(interval) {
      busy.add(interval.end - interval.start, { 'gepa.work_kind': interval.kind });
    },
  };
}
