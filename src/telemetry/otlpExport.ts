// The CLI's OpenTelemetry export: when the standard OTEL_EXPORTER_OTLP_ENDPOINT is set (or the
// per-signal OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_METRICS_ENDPOINT), a tracer
// provider and a meter provider with OTLP/HTTP (JSON) exporters are registered globally, so the
// run's spans (runTracer.ts) and metrics (runMetrics.ts) reach the collector. The SDK packages
// are optional peers, imported here only then: the library and an unconfigured CLI never load them.
import { diag, DiagLogLevel, metrics, trace, type DiagLogFunction } from '@opentelemetry/api';
import { importIntegration, type OptionalIntegration } from '../peers/optionalDependency.js';
import { TELEMETRY_SCOPE } from './runTelemetry.js';

export const OTLP_TRACE_EXPORT: OptionalIntegration = {
  feature: 'exporting OpenTelemetry traces (OTEL_EXPORTER_OTLP_ENDPOINT is set)',
  packages: ['@opentelemetry/sdk-trace-base', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/resources'],
};

export const OTLP_METRIC_EXPORT: OptionalIntegration = {
  feature: 'exporting OpenTelemetry metrics (OTEL_EXPORTER_OTLP_ENDPOINT is set)',
  packages: ['@opentelemetry/sdk-metrics', '@opentelemetry/exporter-metrics-otlp-http', '@opentelemetry/resources'],
};

type Env = Readonly<Record<string, string | undefined>>;

/** A registered export; `shutdown` sends what is not yet sent and unregisters the providers. */
export interface OtlpExport {
  shutdown(): Promise<void>;
}

const isSet = (value: string | undefined) => value !== undefined && value.trim() !== '';

/** The standard OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER=none turn one signal off (e.g. for a backend that takes traces only). */
const turnedOff = (value: string | undefined) => value?.trim().toLowerCase() === 'none';

export function otlpTracesRequested(env: Env): boolean {
  return (isSet(env.OTEL_EXPORTER_OTLP_ENDPOINT) || isSet(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)) && !turnedOff(env.OTEL_TRACES_EXPORTER);
}

export function otlpMetricsRequested(env: Env): boolean {
  return (isSet(env.OTEL_EXPORTER_OTLP_ENDPOINT) || isSet(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT)) && !turnedOff(env.OTEL_METRICS_EXPORTER);
}

/** A diagnostic argument in one line: the SDK's error handler passes errors serialized as JSON. */
function diagText(value: unknown): string {
  if (value instanceof Error) return value.message;
  if (typeof value !== 'string') return '';
  try {
    const parsed = JSON.parse(value) as { message?: unknown };
    if (typeof parsed?.message === 'string') return parsed.message;
  } catch {
    // Not JSON: the message as it is.
  }
  return value;
}

/**
 * The SDK reports a failed export (a collector down, a backend that takes no metrics) through
 * OpenTelemetry's diagnostic logger, silent unless one is set: each distinct message is said
 * once, so a run does not lose its telemetry without a word, nor repeat it every interval.
 */
function sayExportFailures(warn: (message: string) => void): void {
  const said = new Set<string>();
  const say: DiagLogFunction = (message, ...args) => {
    const text = [message, ...args].map(diagText).filter(Boolean).join(' ');
    if (said.has(text)) return;
    said.add(text);
    warn(`OpenTelemetry export: ${text}`);
  };
  const quiet: DiagLogFunction = () => undefined;
  diag.setLogger({ error: say, warn: say, info: quiet, debug: quiet, verbose: quiet }, DiagLogLevel.WARN);
}

/** What the exporters cannot honour, said once per signal: they speak http/json only. */
export function protocolWarnings(env: Env): string[] {
  const warnings: string[] = [];
  for (const [signal, specific, requested] of [
    ['traces', env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, otlpTracesRequested(env)],
    ['metrics', env.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL, otlpMetricsRequested(env)],
  ] as const) {
    const protocol = (specific ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim();
    if (!requested || protocol === undefined || protocol === '' || protocol === 'http/json') continue;
    warnings.push(`OTEL_EXPORTER_OTLP_PROTOCOL=${protocol}: gepa-actors exports ${signal} as http/json (every OTLP/HTTP receiver accepts it)`);
  }
  return warnings;
}

/**
 * Registers the OTLP/HTTP exports the environment asks for; undefined when it asks for none. The
 * exporters read the endpoints, OTEL_EXPORTER_OTLP_HEADERS and the timeouts from `process.env`
 * themselves. Metrics are sent every OTEL_METRIC_EXPORT_INTERVAL ms (the SDK's default, 60 s)
 * and once more at shutdown, so a short run still delivers its totals.
 */
export async function startOtlpExport(env: Env, warn: (message: string) => void): Promise<OtlpExport | undefined> {
  const traces = otlpTracesRequested(env);
  const meters = otlpMetricsRequested(env);
  if (!traces && !meters) return undefined;
  for (const warning of protocolWarnings(env)) warn(warning);
  sayExportFailures(warn);
  const resources = await importIntegration(traces ? OTLP_TRACE_EXPORT : OTLP_METRIC_EXPORT, () => import('@opentelemetry/resources'));
  const resource = resources.resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME ?? TELEMETRY_SCOPE });
  const shutdowns: Array<() => Promise<void>> = [];
  if (traces) {
    const [sdk, otlp] = await importIntegration(OTLP_TRACE_EXPORT, () => Promise.all([import('@opentelemetry/sdk-trace-base'), import('@opentelemetry/exporter-trace-otlp-http')]));
    const provider = new sdk.BasicTracerProvider({ resource, spanProcessors: [new sdk.BatchSpanProcessor(new otlp.OTLPTraceExporter())] });
    trace.setGlobalTracerProvider(provider);
    shutdowns.push(() => provider.shutdown().finally(() => trace.disable()));
  }
  if (meters) {
    const [sdk, otlp] = await importIntegration(OTLP_METRIC_EXPORT, () => Promise.all([import('@opentelemetry/sdk-metrics'), import('@opentelemetry/exporter-metrics-otlp-http')]));
    const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
    const reader = new sdk.PeriodicExportingMetricReader({ exporter: new otlp.OTLPMetricExporter(), ...(interval > 0 ? { exportIntervalMillis: interval } : {}) });
    const provider = new sdk.MeterProvider({ resource, readers: [reader] });
    metrics.setGlobalMeterProvider(provider);
    shutdowns.push(() => provider.shutdown().finally(() => metrics.disable()));
  }
  return {
    async shutdown() {
      const settled = await Promise.allSettled(shutdowns.map((s) => s()));
      diag.disable();
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
}
