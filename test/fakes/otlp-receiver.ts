import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// A local stand-in for an OpenTelemetry collector: OTLP over HTTP with JSON (`POST /v1/traces`), as the exporter in
// src/adapters/telemetry/start-tracing.ts sends it. Keeps every span it receives, flattened with its service's name,
// and every request's body as it came (events, links and status included), for tests that look at all of it.

type OtlpValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean };
type OtlpAttribute = { key: string; value: OtlpValue };
type OtlpSpan = { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: OtlpAttribute[] };
type OtlpRequest = { resourceSpans: Array<{ resource: { attributes: OtlpAttribute[] }; scopeSpans: Array<{ spans: OtlpSpan[] }> }> };

export type ReceivedSpan = {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean | undefined>;
};

export type OtlpReceiver = { url: string; spans: ReceivedSpan[]; bodies: string[]; close(): Promise<void> };

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const text = Buffer.concat(chunks).toString('utf8');
      bodies.push(text);
      const body = JSON.parse(text) as OtlpRequest;
      for (const { resource, scopeSpans } of body.resourceSpans) {
        const service = String(valueOf(resource.attributes.find(({ key }) => key === 'service.name')?.value));
        for (const span of scopeSpans.flatMap((scope) => scope.spans)) {
          spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId || undefined,
            name: span.name,
            kind: span.kind,
            attributes: Object.fromEntries((span.attributes ?? []).map(({ key, value }) => [key, valueOf(value)])),
          });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    bodies,
    close: () => new Promise((resolveClose) => server.close(() => resolveClose())),
  };
}

function valueOf(value: OtlpValue | undefined): string | number | boolean | undefined {
  return value?.stringValue ?? (value?.intValue === undefined ? value?.boolValue : Number(value.intValue));
}
