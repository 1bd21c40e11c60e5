// A run feeds OpenTelemetry only when the application registered a provider: without one, every
// span and instrument would be a no-op, so the run makes no telemetry listener, call record or
// slot interval at all; with a tracer or a meter provider registered, it feeds both.
import { afterEach, describe, expect, it } from 'vitest';
import { metrics, trace } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { SimulatedClock } from 'xstate';
import { prepareRun } from '../src/run/prepareRun.js';
import { createRunTelemetry, telemetryRegistered } from '../src/telemetry/runTelemetry.js';
import { createDemoTask } from '../src/demo/demoTask.js';

afterEach(() => {
  trace.disable();
  metrics.disable();
});

const demoRun = () => {
  const task = createDemoTask({ seed: 1 });
  return prepareRun({ seedCandidate: task.seedCandidate, trainset: task.trainset, valset: task.valset, adapter: task.adapter, reflectionLm: task.reflectionLm, maxMetricCalls: 100 });
};

describe('telemetry only with a registered provider', () => {
  it('with no provider, the run has no telemetry hooks: no event listener, no call record, no slot interval', () => {
    expect(telemetryRegistered()).toBe(false);
    expect(createRunTelemetry(new SimulatedClock())).toBeUndefined();
    const prepared = demoRun();
    expect(prepared.onEvent).toBeUndefined();
    expect(prepared.onCall).toBeUndefined();
    expect(prepared.onSlotInterval).toBeUndefined();
  });

  it('a tracer provider registered: the run is traced (and its no-op meter fed)', () => {
    trace.setGlobalTracerProvider(new BasicTracerProvider());
    expect(telemetryRegistered()).toBe(true);
    const prepared = demoRun();
    expect(prepared.onEvent).toBeTypeOf('function');
    expect(prepared.onCall).toBeTypeOf('function');
  });

  it('a meter provider registered: the run records metrics', () => {
    metrics.setGlobalMeterProvider(new MeterProvider());
    expect(telemetryRegistered()).toBe(true);
    expect(createRunTelemetry(new SimulatedClock())).toBeDefined();
    expect(demoRun().onSlotInterval).toBeTypeOf('function');
  });

  it('telemetry: false feeds nothing even with a provider registered', () => {
    trace.setGlobalTracerProvider(new BasicTracerProvider());
    const task = createDemoTask({ seed: 1 });
    const prepared = prepareRun({ seedCandidate: task.seedCandidate, trainset: task.trainset, valset: task.valset, adapter: task.adapter, reflectionLm: task.reflectionLm, maxMetricCalls: 100, telemetry: false });
    expect(prepared.onEvent).toBeUndefined();
  });
});
