import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { envDetectorSync, Resource } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { createRequire } from 'node:module';
import type { Config } from '../../config.ts';
import { redactingSpanExporter } from './redacting-span-exporter.ts';

export type Tracing = {
  /** Where the worker sends the spans its workflows make (they are made inside the workflow sandbox). */
  spanProcessor: SpanProcessor;
  resource: Resource;
  /** Sends what is still buffered; call once, when the process stops. */
  shutdown(): Promise<void>;
};

// Probes and scrapes would be most of the traces and tell nothing.
const untracedPaths = new Set(['/health', '/ready', '/metrics']);

/**
 * Installs OpenTelemetry for this process when an OTLP endpoint is configured (`OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, OTLP over HTTP with JSON; the exporter reads the other standard `OTEL_*`
 * variables itself); otherwise does nothing and returns undefined, and every span the code asks for is a no-op.
 * Traces HTTP in and out (`node:http`, `node:https`: Express, got, the S3 client); Temporal's interceptors
 * (src/adapters/temporal/client-interceptors.ts, worker/) carry the context through workflows and activities.
 */
export function startTracing(defaultServiceName: string, settings: Config['tracing']): Tracing | undefined {
  if (!settings.enabled) return undefined;
  const resource = envDetectorSync.detect().merge(new Resource({ 'service.name': settings.serviceName ?? defaultServiceName }));
  // Spans carry URLs, and URLs credentials (Telegram's bot token, Meta's access tokens, OAuth codes): redacted on the way out.
  const spanProcessor = new BatchSpanProcessor(redactingSpanExporter(new OTLPTraceExporter()));
  const sdk = new NodeSDK({
    resource,
    autoDetectResources: false,
    spanProcessors: [spanProcessor],
    // Traces only: logs stay pino's JSON lines on stdout, metrics Prometheus'.
    logRecordProcessors: [],
    instrumentations: [new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => untracedPaths.has((req.url ?? '').split('?')[0]!) })],
  });
  sdk.start();
  // Instrumentations patch a module when it passes through require(); our ESM code imports node:http and node:https,
  // which never does. Requiring them once patches the shared module objects in place, whoever imported them first.
  const require = createRequire(import.meta.url);
  require('node:http');
  require('node:https');
  return { spanProcessor, resource, shutdown: () => sdk.shutdown() };
}
