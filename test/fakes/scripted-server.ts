import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { startHttpsServer } from './https-server.ts';
import { sendEndless } from './endless-body.ts';

// What the fake social platforms share: an HTTPS server that records every request and lets a test script the
// answers to the next requests to an endpoint (errors, rate limits, redirects, lost replies, slow answers), before
// the platform's own handlers answer the rest. Every answer is JSON.

/** One scripted answer for the next request to an endpoint; requests beyond the script are answered normally. */
export type ScriptedResponse = {
  /** Answer this status with the platform's JSON error body; without it, the normal answer (after `delayMs`). */
  status?: number;
  /** Becomes the Retry-After header. */
  retryAfter?: string;
  /** Becomes the platform's rate-limit reset header, in the platform's format. */
  rateLimitReset?: string;
  /** Becomes the Location header (for redirects). */
  location?: string;
  /** The request takes effect as usual and only its answer is replaced: a reply lost after the write. */
  applied?: boolean;
  /** The request takes effect as usual and the connection is closed without an answer: an outcome the client cannot know. */
  dropped?: boolean;
  /** Waits this long before answering (for client timeouts). */
  delayMs?: number;
  /** Answers 200 with a JSON body that never ends, until the client hangs up. */
  endless?: boolean;
};

export type Reply = { status: number; body: unknown; headers?: Record<string, string> };
export type Received = { request: IncomingMessage; body: Buffer; url: URL };
/** How a platform answers requests to one endpoint when no script stands in (authentication included). */
export type Route<Endpoint> = { endpoint: Endpoint; handle: (received: Received) => Reply | Promise<Reply> };

export type ScriptedServerOptions<Endpoint, Scripted extends ScriptedResponse, Recorded> = {
  /** Names the fake in the log when a handler throws. */
  name: string;
  /** The header `rateLimitReset` becomes. */
  rateLimitResetHeader: string;
  /** What `requests` keeps of each request. */
  record(request: IncomingMessage, url: URL): Recorded;
  /** The route for a request, or the reply to a request no endpoint takes (no script is used up for it). */
  route(request: IncomingMessage, url: URL): Route<Endpoint> | Reply;
  /** The platform's error reply for a scripted status. */
  failure(status: number, scripted: Scripted): Reply;
};

export type ScriptedServer<Endpoint, Scripted, Recorded> = {
  /** https, trusted by test processes. */
  url: string;
  /** Every request received, in order. */
  requests: Recorded[];
  script(endpoint: Endpoint, responses: Scripted[]): void;
  close(): Promise<void>;
};

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** The request's JSON object body; empty unless it was sent as JSON. */
export function jsonOf(received: Received): Record<string, unknown> {
  if (!(received.request.headers['content-type'] ?? '').startsWith('application/json')) return {};
  try {
    const body: unknown = JSON.parse(received.body.toString('utf8'));
    return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function send(response: ServerResponse, reply: Reply) {
  response.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', ...reply.headers });
  response.end(JSON.stringify(reply.body));
}

/** Starts a scripted fake on 127.0.0.1 (port 0). */
export async function startScriptedServer<Endpoint, Scripted extends ScriptedResponse, Recorded>(
  options: ScriptedServerOptions<Endpoint, Scripted, Recorded>,
): Promise<ScriptedServer<Endpoint, Scripted, Recorded>> {
  const scripts = new Map<Endpoint, Scripted[]>();
  const requests: Recorded[] = [];

  async function answer(request: IncomingMessage, response: ServerResponse) {
    const body = await readBody(request);
    const url = new URL(request.url ?? '/', https.url);
    requests.push(options.record(request, url));
    const found = options.route(request, url);
    if (!('endpoint' in found)) return send(response, found);

    const next = scripts.get(found.endpoint)?.shift();
    if (next?.delayMs) {
      await sleep(next.delayMs);
      if (response.destroyed) return;
    }
    if (next?.endless) return sendEndless(response, 'application/json');
    const handled = () => found.handle({ request, body, url });
    if (next?.dropped) {
      await handled();
      return response.destroy();
    }
    if (next?.status === undefined) return send(response, await handled());

    if (next.applied) await handled();
    const headers: Record<string, string> = {};
    if (next.retryAfter) headers['retry-after'] = next.retryAfter;
    if (next.rateLimitReset) headers[options.rateLimitResetHeader] = next.rateLimitReset;
    if (next.location) headers.location = next.location;
    const failed = options.failure(next.status, next);
    send(response, { ...failed, headers: { ...failed.headers, ...headers } });
  }

  const https = await startHttpsServer((request, response) => {
    answer(request, response).catch((error: unknown) => {
      console.error(`${options.name} fake failed`, error);
      response.destroy();
    });
  });
  return {
    url: https.url,
    requests,
    script(endpoint, responses) {
      scripts.set(endpoint, [...(scripts.get(endpoint) ?? []), ...responses]);
    },
    close: () => https.close(),
  };
}
