// The CLI's OpenTelemetry export, as a collector sees it: a local OTLP/HTTP receiver collects
// POST /v1/traces and /v1/metrics bodies while the real CLI runs the demo in a child process. With
// OTEL_EXPORTER_OTLP_ENDPOINT set, gepa.run, gepa.proposal and call spans arrive nested
// (run > proposal > call), LM spans with GenAI token usage, and the run's metrics whose totals
// equal the result's; without it nothing is sent and no
// SDK module is even loaded. A `run` on the loopback OpenAI server names its models on LM spans,
// and a run that fails still sends its spans before the CLI exits 1.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARITHMETIC_RUN_CONFIG, writeArithmeticDataset } from './support/arithmeticRun.js';
import { startFakeOpenAIServer } from './support/fakeOpenAIServer.js';

const ROOT = join(import.meta.dirname, '..');
const exec = promisify(execFile);
const DEMO = ['demo', '--json', '--budget', '200', '--no-report', '--metric-call-ms', '0', '--reflection-ms', '0'];
const RECORD_IMPORTS = join(ROOT, 'test/support/recordOtelImports.mjs');

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
}
interface OtlpSpan {
  name: string;
  spanId: string;
  parentSpanId?: string;
  attributes: OtlpAttribute[];
}
interface TracesBody {
  resourceSpans: Array<{ resource: { attributes: OtlpAttribute[] }; scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
}
interface OtlpDataPoint {
  attributes: OtlpAttribute[];
  asInt?: string | number;
  asDouble?: number;
  count?: string | number;
  sum?: number;
}
interface OtlpMetric {
  name: string;
  sum?: { dataPoints: OtlpDataPoint[] };
  gauge?: { dataPoints: OtlpDataPoint[] };
  histogram?: { dataPoints: OtlpDataPoint[] };
}
interface MetricsBody {
  resourceMetrics: Array<{ resource: { attributes: OtlpAttribute[] }; scopeMetrics: Array<{ metrics: OtlpMetric[] }> }>;
}

let dir: string;
let server: Server;
let port: number;
const requests: Array<{ url: string; contentType: string; body: string }> = [];
/** The receiver's answer to POST /v1/metrics (a backend that takes traces only answers 404). */
let metricsStatus = 200;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gepa-otel-'));
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ url: req.url ?? '', contentType: req.headers['content-type'] ?? '', body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(req.url === '/v1/metrics' ? metricsStatus : 200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Runs the CLI with the extra environment; returns its exit code, its last stdout line parsed and the @opentelemetry modules it resolved. */
async function runCliChild(args: readonly string[], extraEnv: Record<string, string>, log: string) {
  const env: Record<string, string | undefined> = { ...process.env, CI: 'true', GEPA_IMPORT_LOG: log, ...extraEnv };
  // The test process's own environment must not decide whether the child exports.
  for (const key of Object.keys(env)) if (key.startsWith('OTEL_') && !(key in extraEnv)) delete env[key];
  const { code, stdout, stderr } = await exec(process.execPath, ['--import', RECORD_IMPORTS, '--import', 'tsx', join(ROOT, 'src/cli.ts'), ...args], { cwd: ROOT, env }).then(
    (done) => ({ code: 0, stdout: done.stdout, stderr: done.stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  const imported = await readFile(log, 'utf8').catch(() => '');
  return { code, stderr, result: JSON.parse(stdout.trimEnd().split('\n').at(-1) ?? '') as { metricCalls: number; reflectionCalls: number; stopReason: string; bestScore: number }, imported };
}

const runDemo = (extraEnv: Record<string, string>, log: string) => runCliChild(DEMO, extraEnv, log);

/** Every span of the bodies the receiver got. */
const spansOf = (bodies: readonly TracesBody[]) => bodies.flatMap((b) => b.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)));
const traceBodies = () => requests.filter((r) => r.url === '/v1/traces').map((r) => JSON.parse(r.body) as TracesBody);
const received = () => spansOf(traceBodies());
/** The metrics of the last export (cumulative, sent once more at shutdown: the run's totals). */
function lastMetrics(): Map<string, OtlpMetric> {
  const last = requests.filter((r) => r.url === '/v1/metrics').at(-1);
  const body = last ? (JSON.parse(last.body) as MetricsBody) : { resourceMetrics: [] };
  return new Map(body.resourceMetrics.flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics.map((m) => [m.name, m] as const))));
}
const total = (m: OtlpMetric | undefined) => (m?.sum?.dataPoints ?? []).reduce((a, p) => a + Number(p.asInt ?? p.asDouble ?? 0), 0);

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? (value?.intValue !== undefined ? Number(value.intValue) : (value?.doubleValue ?? value?.boolValue));
};

describe('OpenTelemetry export from the CLI', () => {
  it('without OTEL_EXPORTER_OTLP_ENDPOINT nothing is sent and no SDK module is loaded', async () => {
    requests.length = 0;
    const { result, imported } = await runDemo({}, join(dir, 'quiet.log'));
    expect(result.metricCalls).toBeGreaterThan(0);
    expect(requests).toEqual([]);
    // The API is loaded (the library records through it, as no-ops); the SDK is not.
    expect(imported).toContain('/@opentelemetry/api/');
    expect(imported).not.toMatch(/@opentelemetry\/(sdk-trace|sdk-metrics|exporter-|resources|otlp-)/);
  });

  it('with it, gepa.run > gepa.proposal > metric and LM call spans arrive over OTLP/HTTP, LM spans with token usage', async () => {
    requests.length = 0;
    const { result, imported } = await runDemo({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` }, join(dir, 'export.log'));
    expect(imported).toContain('/@opentelemetry/exporter-trace-otlp-http/');
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.every((r) => ['/v1/traces', '/v1/metrics'].includes(r.url) && r.contentType.startsWith('application/json'))).toBe(true);
    const bodies = traceBodies();
    expect(bodies.length).toBeGreaterThan(0);
    const serviceNames = bodies.flatMap((b) => b.resourceSpans.flatMap((rs) => rs.resource.attributes.filter((a) => a.key === 'service.name').map((a) => a.value.stringValue)));
    expect(new Set(serviceNames)).toEqual(new Set(['gepa-actors']));
    const spans = spansOf(bodies);

    const runs = spans.filter((s) => s.name === 'gepa.run');
    expect(runs).toHaveLength(1);
    const run = runs[0] as OtlpSpan;
    expect(run.parentSpanId ?? '').toBe('');
    expect(attribute(run, 'gepa.stop_reason')).toBe('maxMetricCalls');

    const proposals = spans.filter((s) => s.name === 'gepa.proposal');
    expect(proposals.length).toBeGreaterThan(0);
    expect(proposals.every((p) => p.parentSpanId === run.spanId)).toBe(true);
    expect(proposals.every((p) => typeof attribute(p, 'gepa.outcome') === 'string' && typeof attribute(p, 'gepa.staleness') === 'number')).toBe(true);
    const proposalIds = new Set(proposals.map((p) => p.spanId));

    // Every metric call that was made is a span: the seed's under the run, the rest under their proposal.
    const metricCalls = spans.filter((s) => s.name === 'gepa.metric_call');
    expect(metricCalls).toHaveLength(result.metricCalls);
    const seedCalls = metricCalls.filter((s) => attribute(s, 'gepa.work_kind') === 'seed');
    expect(seedCalls.length).toBeGreaterThan(0);
    expect(seedCalls.every((s) => s.parentSpanId === run.spanId)).toBe(true);
    expect(metricCalls.filter((s) => attribute(s, 'gepa.work_kind') !== 'seed').every((s) => proposalIds.has(s.parentSpanId ?? ''))).toBe(true);

    const lmCalls = spans.filter((s) => attribute(s, 'gen_ai.operation.name') === 'chat');
    expect(lmCalls).toHaveLength(result.reflectionCalls);
    expect(lmCalls.length).toBeGreaterThan(0);
    for (const lm of lmCalls) {
      expect(proposalIds.has(lm.parentSpanId ?? '')).toBe(true);
      expect(attribute(lm, 'gen_ai.usage.input_tokens')).toBeGreaterThan(0);
      expect(attribute(lm, 'gen_ai.usage.output_tokens')).toBeGreaterThan(0);
    }
  });

  it('with it, the run metrics arrive too: metric and LM calls, tokens, the best score and busy slot-time, totals equal to the result', async () => {
    requests.length = 0;
    const { result, imported } = await runDemo({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` }, join(dir, 'metrics.log'));
    expect(imported).toContain('/@opentelemetry/exporter-metrics-otlp-http/');
    const m = lastMetrics();
    expect(total(m.get('gepa.metric_calls'))).toBe(result.metricCalls);
    expect(total(m.get('gepa.lm_calls'))).toBe(result.reflectionCalls);
    expect(total(m.get('gepa.slots.busy_time'))).toBeGreaterThanOrEqual(0);
    const best = m.get('gepa.best_score')?.gauge?.dataPoints[0];
    expect(best?.asDouble ?? Number(best?.asInt)).toBe(result.bestScore);
    const tokens = m.get('gen_ai.client.token.usage')?.histogram?.dataPoints ?? [];
    // One input and one output record per reflection that reported usage.
    expect(tokens.reduce((a, p) => a + Number(p.count ?? 0), 0)).toBe(2 * result.reflectionCalls);
    // Without the endpoint, the per-signal variable alone exports metrics and no traces.
    requests.length = 0;
    const only = await runDemo({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `http://127.0.0.1:${port}/v1/metrics` }, join(dir, 'metrics-only.log'));
    expect(total(lastMetrics().get('gepa.metric_calls'))).toBe(only.result.metricCalls);
    expect(requests.every((r) => r.url === '/v1/metrics')).toBe(true);
    expect(only.imported).not.toMatch(/@opentelemetry\/(sdk-trace|exporter-trace-otlp-http)/);
  });

  it('a backend that refuses metrics is named once on stderr and fails nothing; OTEL_METRICS_EXPORTER=none sends none', async () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` };
    metricsStatus = 404;
    try {
      requests.length = 0;
      const refused = await runDemo(endpoint, join(dir, 'refused.log'));
      expect(refused.code).toBe(0);
      expect(refused.stderr.match(/OpenTelemetry export: .*metrics export failed/g)).toHaveLength(1);
      expect(received().some((s) => s.name === 'gepa.run')).toBe(true);

      requests.length = 0;
      const off = await runDemo({ ...endpoint, OTEL_METRICS_EXPORTER: 'none' }, join(dir, 'no-metrics.log'));
      expect(off.code).toBe(0);
      expect(off.stderr).not.toContain('OpenTelemetry export');
      expect(requests.length).toBeGreaterThan(0);
      expect(requests.every((r) => r.url === '/v1/traces')).toBe(true);
      expect(off.imported).not.toMatch(/@opentelemetry\/(sdk-metrics|exporter-metrics-otlp-http)/);
    } finally {
      metricsStatus = 200;
    }
  });

  it('a real run names its models on LM spans; a run that fails (exit 1) still sends its spans, the run span marked as an error', async () => {
    const server = await startFakeOpenAIServer({ models: ['gpt-4.1-mini', 'gpt-5-mini'] });
    try {
      await writeArithmeticDataset(dir);
      const config = join(dir, 'run.json');
      await writeFile(config, JSON.stringify(ARITHMETIC_RUN_CONFIG));
      const env = { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'test', OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` };

      requests.length = 0;
      const ok = await runCliChild(['run', config, '--json'], env, join(dir, 'run.log'));
      expect(ok.code).toBe(0);
      const lmSpans = received().filter((s) => attribute(s, 'gen_ai.operation.name') === 'chat');
      expect(lmSpans.length).toBe(ok.result.reflectionCalls);
      expect(lmSpans.length).toBeGreaterThan(0);
      expect(lmSpans.every((s) => s.name === 'chat gpt-5-mini' && attribute(s, 'gen_ai.request.model') === 'gpt-5-mini')).toBe(true);

      requests.length = 0;
      server.setMode({ kind: 'status', status: 404, message: 'The model `gpt-4.1-mini` does not exist' });
      const failed = await runCliChild(['run', config, '--json'], env, join(dir, 'failed.log'));
      expect(failed.code).toBe(1);
      expect(failed.result.stopReason).toBe('error');
      const runs = received().filter((s) => s.name === 'gepa.run') as Array<OtlpSpan & { status?: { code?: number } }>;
      expect(runs).toHaveLength(1);
      expect(attribute(runs[0] as OtlpSpan, 'gepa.stop_reason')).toBe('error');
      expect(runs[0]?.status?.code).toBe(2); // STATUS_CODE_ERROR
    } finally {
      await server.close();
    }
  });
});
