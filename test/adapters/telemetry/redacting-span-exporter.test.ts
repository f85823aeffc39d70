import { SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { redactingSpanExporter } from '../../../src/adapters/telemetry/redacting-span-exporter.ts';

// The exporter wrapper on its own, with the real SDK: everything a span carries, not only its URL attributes.

describe('redactingSpanExporter', () => {
  it('when a span carries credentials in its name, attributes, headers, events, links and status, then none is exported', () => {
    const exported = new InMemorySpanExporter();
    const provider = new BasicTracerProvider();
    provider.addSpanProcessor(new SimpleSpanProcessor(redactingSpanExporter(exported)));
    const tracer = provider.getTracer('test');
    const linked = tracer.startSpan('linked');
    linked.end();

    const span = tracer.startSpan('GET /bot42:AAS3CR3T/getMe', {
      attributes: {
        'http.url': 'https://graph.threads.net/v1.0/me?fields=id&access_token=THS3CR3T',
        'url.query': 'code=AQS3CR3T&state=STS3CR3T',
        'http.request.header.authorization': ['Bearer APIS3CR3T'],
        'http.request.header.accept': ['application/json'],
        'http.status_code': 200,
      },
      links: [{ context: linked.spanContext(), attributes: { 'url.full': 'https://h/files/a.png?signature=SIGS3CR3T' } }],
    });
    span.addEvent('exception', { 'exception.message': 'GET https://h/webhooks/112233445566/WHS3CR3T failed' });
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'refused at https://h/x?client_secret=CSS3CR3T' });
    span.end();

    const [, result] = exported.getFinishedSpans();
    const text = JSON.stringify(result, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value));
    expect(text).not.toMatch(/S3CR3T/);
    expect(result!.name).toBe('GET /bot42:REDACTED/getMe');
    expect(result!.attributes).toEqual({
      'http.url': 'https://graph.threads.net/v1.0/me?fields=id&access_token=REDACTED',
      'url.query': 'code=REDACTED&state=REDACTED',
      'http.request.header.authorization': ['REDACTED'],
      'http.request.header.accept': ['application/json'],
      'http.status_code': 200,
    });
    expect(result!.spanContext()).toEqual(span.spanContext());
  });
});
