// The run's OpenTelemetry metrics as a registered MeterProvider collects them: the demo task on a
// SimulatedClock (latencies of 20 ms per metric call, 200 ms per reflection, W=4), and the
// counters agree with the result: metric calls, LM calls, the best score, and busy slot-time
// equal to the result's utilization times workers times elapsed time.
import { metrics } from '@opentelemetry/api';
import { MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { SimulatedClock } from 'xstate';
import { afterAll, describe, expect, it } from 'vitest';
import { runOnSimulatedClock, steppingClock } from '../src/clock.js';
import { createDemoTask } from '../src/demo/demoTask.js';
import { optimize } from '../src/index.js';

/** A reader the test pulls from. */
class PullReader extends MetricReader {
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

const reader = new PullReader();
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
afterAll(() => metrics.disable());

/** The values of every data point of the named metric (a histogram's: its summary). */
function pointValues(collected: ResourceMetrics, name: string): unknown[] {
  return collected.scopeMetrics
    .flatMap((s) => s.metrics)
    .filter((m) => m.descriptor.name === name)
    .flatMap((m) => (m.dataPoints as Array<{ value: unknown }>).map((p) => p.value));
}

/** Sum over every data point of the named counter or gauge (a gauge: its last value). */
const total = (collected: ResourceMetrics, name: string): number => pointValues(collected, name).reduce<number>((sum, v) => sum + (v as number), 0);

describe('run metrics', () => {
  it('count the calls, the busy slot-time and the best score the result reports', async () => {
    const clock = steppingClock(new SimulatedClock());
    const task = createDemoTask({ seed: 0, clock, metricCallMs: 20, reflectionMs: 200 });
    const workers = 4;
    const result = await runOnSimulatedClock(
      clock,
      optimize({ seedCandidate: task.seedCandidate, trainset: task.trainset, valset: task.valset, adapter: task.adapter, reflectionLm: task.reflectionLm, maxMetricCalls: 200, workers, clock }),
    );
    const { resourceMetrics } = await reader.collect();
    expect(result.reflectionCalls).toBeGreaterThan(0);
    expect(total(resourceMetrics, 'gepa.metric_calls')).toBe(result.metricCalls);
    expect(total(resourceMetrics, 'gepa.lm_calls')).toBe(result.reflectionCalls);
    expect(total(resourceMetrics, 'gepa.best_score')).toBe(result.bestScore);
    expect(total(resourceMetrics, 'gepa.workers')).toBe(workers);
    expect(total(resourceMetrics, 'gepa.slots.busy_time')).toBeCloseTo(result.workerUtilization * workers * result.elapsedMs, 3);
    // Two token data points (input, output) per reflection that reported usage, as the demo's does.
    const recorded = pointValues(resourceMetrics, 'gen_ai.client.token.usage').reduce<number>((n, v) => n + (v as { count: number }).count, 0);
    expect(recorded).toBe(2 * result.reflectionCalls);
  });
});
