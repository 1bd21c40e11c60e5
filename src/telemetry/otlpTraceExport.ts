// The CLI's OpenTelemetry export: when the standard OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, a tracer provider with an OTLP/HTTP (JSON) exporter
// is registered globally, so the run's spans (runTracer.ts) reach the collector. The SDK packages
// are optional peers, imported here only then: the library and an unconfigured CLI never load them.
import { trace } from '@opentelemetry/api';
import { importIntegration, type OptionalIntegration } from '../executors/optionalDependency.js';
import { TELEMETRY_SCOPE } from './runTelemetry.js';

export const OTLP_TRACE_EXPORT: OptionalIntegration = {
  feature: 'exporting OpenTelemetry traces (OTEL_EXPORTER_OTLP_ENDPOINT is set)',
  packages: ['@opentelemetry/sdk-trace-base', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/resources'],
};

type Env = Readonly<Record<string, string | undefined>>;

/** A registered export; `shutdown` flushes the spans not yet sent and unregisters the provider. */
export interface TraceExport {
  shutdown(): Promise<void>;
}

const isSet = (value: string | undefined) => value !== undefined && value.trim() !== '';

export function otlpTracesRequested(env: Env): boolean {
  return isSet(env.OTEL_EXPORTER_OTLP_ENDPOINT) || isSet(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** What the exporter cannot honour, said once: it speaks http/json only. */
export function protocolWarning(env: Env): string | undefined {
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (protocol === undefined || protocol.trim() === '' || protocol.trim() === 'http/json') return undefined;
  return `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol}: gepa-actors exports traces as http/json (every OTLP/HTTP receiver accepts it)`;
}

/**
 * Registers the OTLP/HTTP export when the environment asks for one; undefined otherwise. The
 * exporter reads the endpoint, OTEL_EXPORTER_OTLP_HEADERS and the timeouts from `process.env` itself.
 */
export async function startOtlpTraceExport(env: Env, warn: (message: string) => void): Promise<TraceExport | undefined> {
  if (!otlpTracesRequested(env)) return undefined;
  const warning = protocolWarning(env);
  if (warning) warn(warning);
  const [sdk, otlp, resources] = await importIntegration(OTLP_TRACE_EXPORT, () =>
    Promise.all([import('@opentelemetry/sdk-trace-base'), import('@opentelemetry/exporter-trace-otlp-http'), import('@opentelemetry/resources')]),
  );
  const provider = new sdk.BasicTracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME ?? TELEMETRY_SCOPE }),
    spanProcessors: [new sdk.BatchSpanProcessor(new otlp.OTLPTraceExporter())],
  });
  trace.setGlobalTracerProvider(provider);
  return {
    async shutdown() {
      try {
        await provider.shutdown();
      } finally {
        trace.disable();
      }
    },
  };
}
