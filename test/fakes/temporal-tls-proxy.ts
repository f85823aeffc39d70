import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import http2, { type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { DevCertificates } from '../infra/dev-certificates.ts';

// What a Temporal cluster behind TLS looks like to our processes, the way Temporal Cloud fronts one: gRPC over
// HTTP/2 with TLS, optionally asking for a client certificate from the given CA (mTLS) and an API key as a bearer
// token; requests that pass go on, stream by stream, to the run's plain dev server. A refused key answers gRPC's
// UNAUTHENTICATED, as the cloud does.

export type TemporalTlsProxy = {
  /** `localhost:<port>`, for TEMPORAL_ADDRESS. */
  address: string;
  /** gRPC requests that reached the dev server. */
  forwarded: number;
  /** gRPC requests refused for their API key. */
  refused: number;
  /**
   * gRPC methods (e.g. `StartWorkflowExecution`) whose requests go on to the dev server but whose answers never come
   * back: the connection they came on is dropped once the server has answered, as a network failing mid-call does.
   * Empty to begin with; set it to start losing answers.
   */
  loseAnswersTo: string[];
  /** Requests to `loseAnswersTo` that reached the dev server and whose answers were dropped. */
  answersLost: number;
  close(): Promise<void>;
};

const hopByHop = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'http2-settings']);

export async function startTemporalTlsProxy(options: {
  target: string;
  certificates: DevCertificates;
  clientCertificate: boolean;
  apiKey?: string;
}): Promise<TemporalTlsProxy> {
  const upstream = http2.connect(`http://${options.target}`);
  upstream.on('error', () => {});
  const server = http2.createSecureServer({
    key: readFileSync(options.certificates.keyPath),
    cert: readFileSync(options.certificates.certPath),
    ca: readFileSync(options.certificates.caCertPath),
    requestCert: options.clientCertificate,
    rejectUnauthorized: options.clientCertificate,
  });
  const proxy: TemporalTlsProxy = {
    address: '',
    forwarded: 0,
    refused: 0,
    loseAnswersTo: [],
    answersLost: 0,
    async close() {
      const closed = once(server, 'close');
      server.close();
      // server.close() waits for every client's session to end, and a client that has closed its Temporal connection
      // may still hold one open for a while (a worker's long polls): end them, as a proxy going away does.
      for (const session of sessions) session.destroy();
      upstream.close();
      await closed;
    },
  };
  server.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
    if (options.apiKey !== undefined && headers.authorization !== `Bearer ${options.apiKey}`) {
      proxy.refused += 1;
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '16', 'grpc-message': 'Request unauthorized' }, { endStream: true });
      return;
    }
    proxy.forwarded += 1;
    const request = upstream.request(
      Object.fromEntries(Object.entries(headers).filter(([name]) => !hopByHop.has(name) && name !== ':scheme' && name !== ':authority')),
    );
    let trailers: IncomingHttpHeaders = {};
    request.on('trailers', (received: IncomingHttpHeaders) => {
      trailers = received;
    });
    request.on('response', (responseHeaders, flags) => {
      if (proxy.loseAnswersTo.some((method) => String(headers[':path']).endsWith(`/${method}`))) {
        proxy.answersLost += 1;
        stream.session?.destroy();
        return;
      }
      if (flags & http2.constants.NGHTTP2_FLAG_END_STREAM) {
        stream.respond(responseHeaders, { endStream: true });
        return;
      }
      stream.respond(responseHeaders, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers(trailers));
      request.pipe(stream);
    });
    request.on('error', () => stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR));
    stream.on('close', () => request.close());
    stream.on('error', () => request.close());
    stream.pipe(request);
  });
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session: http2.ServerHttp2Session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  server.on('sessionError', () => {});
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  proxy.address = `localhost:${(server.address() as AddressInfo).port}`;
  return proxy;
}
