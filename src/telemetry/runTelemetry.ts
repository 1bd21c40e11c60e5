// The run's OpenTelemetry: its tracer and its metrics, fed by the run's events, call records and
// slot intervals. Uses the global providers of @opentelemetry/api, so an application that
// registers an SDK sees the run. Without one every span and instrument is a no-op, and the run
// feeds none: no listener on its events, no record per call or slot interval (with zero-latency
// calls, making and reading them for nothing cost ~10% of a run's CPU).
import { createNoopMeter, metrics, ProxyTracerProvider, trace } from '@opentelemetry/api';
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

/**
 * Whether an application registered a tracer or meter provider with @opentelemetry/api. The API's
 * tracer provider is its proxy until an SDK hands it a delegate; its meter, the no-op meter until
 * a provider is set. A provider registered through another copy of the API reads as registered.
 */
export function telemetryRegistered(): boolean {
  const tracers = trace.getTracerProvider();
  const tracing = !(tracers instanceof ProxyTracerProvider) || tracers.getDelegateTracer(TELEMETRY_SCOPE) !== undefined;
  return tracing || metrics.getMeter(TELEMETRY_SCOPE) !== createNoopMeter();
}

/**
 * The run's telemetry, or none when no provider is registered as the run is prepared (register
 * providers before calling optimize(), as OpenTelemetry's own setup asks).
 */
export function createRunTelemetry(clock: Clock): RunTelemetry | undefined {
  if (!telemetryRegistered()) return undefined;
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
