// The run's OpenTelemetry: its tracer and its metrics, fed by the run's events, call records and
// slot intervals. Uses the global providers of @opentelemetry/api, so an application that
// registers an SDK sees the run; without one every span and instrument is a no-op.
import { metrics, trace } from '@opentelemetry/api';
import type { CallRecord } from '../evaluation/callRecord.js';
import type { Clock } from '../clock.js';
import type { RunEvent } from '../gepa/core/runEvent.js';
import type { SlotInterval } from '../evaluation/workerSlots.js';
import { createRunMetrics } from './runMetrics.js';
import { createRunTracer } from './runTracer.js';

/** The instrumentation scope of every span and instrument. */
export const TELEMETRY_SCOPE = 'gepa-actors';

export interface RunTelemetry {
  onEvent(event: RunEvent): void;
  onCall(call: CallRecord): void;
  onSlotInterval(interval: SlotInterval): void;
}

export function createRunTelemetry(clock: Clock): RunTelemetry {
  const tracer = createRunTracer(trace.getTracer(TELEMETRY_SCOPE), clock);
  const meters = createRunMetrics(metrics.getMeter(TELEMETRY_SCOPE));
  return {
    onEvent(event) {
      tracer.onEvent(event);
      meters.onEvent(event);
    },
    onCall(call) {
      tracer.onCall(call);
      meters.onCall(call);
    },
    onSlotInterval: meters.onSlotInterval,
  };
}
