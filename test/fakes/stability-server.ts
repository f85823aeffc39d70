import { randomInt, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { sendEndless } from './endless-body.ts';

// A local stand-in for Stability AI's v2beta stable-image API, speaking its documented protocol: bearer key,
// multipart form in, image bytes (or JSON with base64 when asked) out, JSON errors `{ id, name, errors }`.

/** One scripted answer for the next request; requests beyond the script get the default success. */
type StabilityScriptedResponse =
  /** Success as image bytes, whatever the request's Accept header says. */
  | { kind: 'image' }
  /** Success as JSON `{ image, finish_reason, seed }`, whatever the request's Accept header says. */
  | { kind: 'json' }
  /** 200 with finish reason CONTENT_FILTERED, shaped by the Accept header unless `as` says otherwise. */
  | { kind: 'content-filtered'; as?: 'image' | 'json' }
  /** 200 image/png that never ends (chunked, no Content-Length), until the client hangs up. */
  | { kind: 'endless' }
  /** A JSON error; `retryAfter` becomes the Retry-After header. */
  | { status: number; name?: string; errors?: string[]; retryAfter?: string };

type StabilityRequest = { engine: string; headers: IncomingHttpHeaders; fields: Record<string, string> };

type StabilityHold = { received: Promise<void>; release(): void };

export type StabilityServer = {
  /** The base URL, for STABILITY_API_URL. */
  url: string;
  apiKey: string;
  /** Every request received, in order. */
  requests: StabilityRequest[];
  script(responses: StabilityScriptedResponse[]): void;
  /** Makes the next request wait, once received, until released. */
  hold(): StabilityHold;
  close(): Promise<void>;
};

// The sizes Stability's generate endpoints return for each aspect ratio.
const imageSizes: Record<string, { width: number; height: number }> = {
  '1:1': { width: 1024, height: 1024 },
  '16:9': { width: 1344, height: 768 },
  '9:16': { width: 768, height: 1344 },
  '21:9': { width: 1536, height: 640 },
  '9:21': { width: 640, height: 1536 },
  '3:2': { width: 1216, height: 832 },
  '2:3': { width: 832, height: 1216 },
  '5:4': { width: 1088, height: 896 },
  '4:5': { width: 896, height: 1088 },
};

const errorNames: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'content_moderation',
  404: 'not_found',
  413: 'payload_too_large',
  422: 'invalid_language',
  429: 'rate_limit_exceeded',
  500: 'internal_error',
};

const pngCache = new Map<string, Promise<Buffer>>();

function pngOfSize(width: number, height: number): Promise<Buffer> {
  const key = `${width}x${height}`;
  let png = pngCache.get(key);
  if (!png) {
    png = sharp({ create: { width, height, channels: 3, background: '#3a5f8f' } })
      .png()
      .toBuffer();
    pngCache.set(key, png);
  }
  return png;
}

function sendError(response: ServerResponse, status: number, errors: string[], name = errorNames[status] ?? 'error', headers: Record<string, string> = {}) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify({ id: randomUUID().replaceAll('-', ''), name, errors }));
}

async function readForm(request: IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  const contentType = request.headers['content-type'] ?? '';
  if (!contentType.startsWith('multipart/form-data')) return {};
  const form = await new Response(Buffer.concat(chunks), { headers: { 'content-type': contentType } }).formData();
  const fields: Record<string, string> = {};
  for (const [name, value] of form) if (typeof value === 'string') fields[name] = value;
  return fields;
}

type SuccessScript = Exclude<StabilityScriptedResponse, { status: number }>;

// Like the real API, the Accept header picks bytes or JSON, unless the script forces one.
function shapeOf(next: SuccessScript | undefined, accept: string): 'image' | 'json' {
  if (next?.kind === 'image' || next?.kind === 'json') return next.kind;
  if (next?.kind === 'content-filtered' && next.as) return next.as;
  return accept.includes('application/json') ? 'json' : 'image';
}

/** Starts the fake on 127.0.0.1 (port 0); it accepts only `Bearer <apiKey>`. */
export async function startStabilityServer(options: { apiKey?: string } = {}): Promise<StabilityServer> {
  const apiKey = options.apiKey ?? `sk-test-${randomUUID()}`;
  const requests: StabilityRequest[] = [];
  const scripted: StabilityScriptedResponse[] = [];
  const holds: Array<{ arrived: () => void; released: Promise<void> }> = [];
  const releases = new Set<() => void>();

  async function answer(request: IncomingMessage, response: ServerResponse) {
    const engine = /^\/v2beta\/stable-image\/generate\/(core|ultra|sd3)$/.exec(request.url ?? '')?.[1];
    const fields = await readForm(request);
    if (request.method !== 'POST' || !engine) return sendError(response, 404, [`${request.method} ${request.url}: not found`]);
    requests.push({ engine, headers: request.headers, fields });

    const hold = holds.shift();
    if (hold) {
      hold.arrived();
      await hold.released;
      if (response.destroyed) return;
    }

    if (request.headers.authorization !== `Bearer ${apiKey}`) {
      return sendError(response, 401, ['authorization: invalid or missing API key']);
    }
    if (!fields.prompt) return sendError(response, 400, ['prompt: cannot be empty']);
    const aspectRatio = fields.aspect_ratio ?? '1:1';
    const size = imageSizes[aspectRatio];
    if (!size) return sendError(response, 400, [`aspect_ratio: must be one of ${Object.keys(imageSizes).join(', ')}`]);

    const next = scripted.shift();
    if (next && 'status' in next) {
      const headers: Record<string, string> = next.retryAfter ? { 'retry-after': next.retryAfter } : {};
      return sendError(response, next.status, next.errors ?? [`the fake answered ${next.status}`], next.name, headers);
    }
    if (next?.kind === 'endless') return sendEndless(response, 'image/png');
    const seed = Number(fields.seed) || randomInt(1, 4_294_967_295);
    const finishReason = next?.kind === 'content-filtered' ? 'CONTENT_FILTERED' : 'SUCCESS';
    const png = await pngOfSize(size.width, size.height);
    if (shapeOf(next, request.headers.accept ?? 'image/*') === 'json') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ image: png.toString('base64'), finish_reason: finishReason, seed }));
    } else {
      response.writeHead(200, { 'content-type': 'image/png', 'finish-reason': finishReason, seed: String(seed) });
      response.end(png);
    }
  }

  const server = createServer((request, response) => {
    answer(request, response).catch((error: unknown) => {
      console.error('stability fake failed', error);
      response.destroy();
    });
  });
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKey,
    requests,
    script(responses) {
      scripted.push(...responses);
    },
    hold() {
      let arrived!: () => void;
      let release!: () => void;
      const received = new Promise<void>((resolveReceived) => (arrived = resolveReceived));
      const released = new Promise<void>((resolveReleased) => (release = resolveReleased));
      holds.push({ arrived, released });
      releases.add(release);
      return { received, release };
    },
    close() {
      for (const release of releases) release();
      return new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      });
    },
  };
}
