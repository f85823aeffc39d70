import type { Attributes, AttributeValue } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { isSecretHeader, redactCredentials, redactedMark } from '../../common/redaction/redact-credentials.ts';

// The HTTP instrumentation records whole URLs (`http.url`, `http.target`, `url.full`, `url.query`, ...) and any
// header it is told to, and an exception event quotes whatever message a library wrote. Rather than chase each
// attribute each instrumentation sets, every span is redacted on its way out, whichever instrumentation, interceptor
// or workflow made it: its name, its status, and every string in its attributes, its events' and its links'.

const headerAttribute = /^http\.(?:request|response)\.header\.(.+)$/;

/** `exporter`, sent spans whose every credential (redact-credentials.ts) is replaced by REDACTED. */
export function redactingSpanExporter(exporter: SpanExporter): SpanExporter {
  return {
    export: (spans, resultCallback) => exporter.export(spans.map(redactedSpan), resultCallback),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

function redactedSpan(span: ReadableSpan): ReadableSpan {
  return {
    name: redactCredentials(span.name),
    kind: span.kind,
    spanContext: () => span.spanContext(),
    parentSpanId: span.parentSpanId,
    startTime: span.startTime,
    endTime: span.endTime,
    status: span.status.message === undefined ? span.status : { ...span.status, message: redactCredentials(span.status.message) },
    attributes: redactedAttributes(span.attributes),
    links: span.links.map((link) => ({ ...link, attributes: link.attributes && redactedAttributes(link.attributes) })),
    events: span.events.map((event) => ({
      ...event,
      name: redactCredentials(event.name),
      attributes: event.attributes && redactedAttributes(event.attributes),
    })),
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationLibrary: span.instrumentationLibrary,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

function redactedAttributes(attributes: Attributes): Attributes {
  const redacted: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    const header = headerAttribute.exec(key)?.[1];
    redacted[key] = header !== undefined && isSecretHeader(header) ? [redactedMark] : redactedValue(value);
  }
  return redacted;
}

function redactedValue(value: AttributeValue | undefined): AttributeValue | undefined {
  if (typeof value === 'string') return redactCredentials(value);
  if (Array.isArray(value)) return value.map((item) => (typeof item === 'string' ? redactCredentials(item) : item)) as AttributeValue;
  return value;
}
