import { makeWorkflowExporter, type OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks } from '@temporalio/worker';
import type { Tracing } from '../src/adapters/telemetry/start-tracing.ts';

/**
 * Where workflows' spans leave the sandbox: this process's span processor, or nowhere while tracing is off. The
 * workflow interceptors are in every bundle (workflows/interceptors.ts), so every worker, replay workers included,
 * needs the sink.
 */
export function workflowSpanSink(tracing?: Tracing): InjectedSinks<OpenTelemetrySinks> {
  return { exporter: tracing ? makeWorkflowExporter(tracing.spanProcessor, tracing.resource) : { export: { fn: () => undefined } } };
}
