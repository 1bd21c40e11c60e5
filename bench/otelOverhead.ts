// What OpenTelemetry costs a run: the demo task with zero-latency simulated models (so the
// runtime is all there is to measure), run with telemetry off, with the API only (no provider
// registered: every span and instrument a no-op, what a library user gets by default), and
// exporting every span to a local OTLP/HTTP receiver (the CLI's setup: batch processor, JSON
// exporter; the receiver runs in this process, so its parsing is counted too). Wall time per run,
// best and median of several runs after warm-up; the modes are interleaved so drift hits all.
// Usage: npx tsx bench/otelOverhead.ts [--runs N] [--budget B]
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { createDemoTask } from '../src/demo/demoTask.js';
import { optimize } from '../src/index.js';
import { median } from './table.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' }, budget: { type: 'string', default: '3000' } } });
const runs = Number(values.runs);
const budget = Number(values.budget);

let received = 0;
const server = createServer((req, res) => {
  req.on('data', (chunk: Buffer) => (received += chunk.length));
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;

type Mode = 'off' | 'api-only' | 'exporting';
const MODES: Mode[] = ['off', 'api-only', 'exporting'];

async function once(mode: Mode): Promise<{ ms: number; metricCalls: number }> {
  const provider = mode === 'exporting' ? new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))] }) : undefined;
  if (provider) trace.setGlobalTracerProvider(provider);
  const task = createDemoTask({ seed: 0 });
  const start = performance.now();
  const result = await optimize({
    seedCandidate: task.seedCandidate, trainset: task.trainset, valset: task.valset, adapter: task.adapter, reflectionLm: task.reflectionLm,
    maxMetricCalls: budget, workers: 8, schedule: { kind: 'async', inFlight: 8 }, telemetry: mode !== 'off',
  });
  // Exporting is done when the collector has every span, not when the run returns.
  await provider?.shutdown();
  const ms = performance.now() - start;
  trace.disable();
  return { ms, metricCalls: result.metricCalls };
}

for (const mode of MODES) await once(mode); // warm-up
const times: Record<Mode, number[]> = { off: [], 'api-only': [], exporting: [] };
let metricCalls = 0;
for (let i = 0; i < runs; i++) {
  for (const mode of MODES) {
    const r = await once(mode);
    times[mode].push(r.ms);
    metricCalls = r.metricCalls;
  }
}
server.close();
const base = median(times.off);
console.log(`demo task, async 8, W=8, zero latency, ${metricCalls} metric calls per run, ${runs} runs per mode (after 1 warm-up)`);
for (const mode of MODES) {
  const m = median(times[mode]);
  const best = Math.min(...times[mode]);
  console.log(`${mode.padEnd(10)} median ${m.toFixed(1)} ms  best ${best.toFixed(1)} ms  (${((m / base - 1) * 100).toFixed(1)}% vs off)  ${Math.round(metricCalls / (m / 1000))} calls/s`);
}
console.log(`receiver got ${(received / 1e6).toFixed(1)} MB of OTLP JSON in all`);
