import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { startHttpsServer } from './https-server.ts';

// A local stand-in for a Bluesky PDS, speaking the XRPC methods that publishing uses: createSession, uploadBlob,
// createRecord and getRecord, with the checks a real PDS makes (bearer session, blob size, post record shape, TID
// record keys, one record per key). Errors are XRPC's JSON `{ error, message }`.

export type BlueskyEndpoint = 'createSession' | 'uploadBlob' | 'createRecord' | 'getRecord';

/** One scripted answer for the next request to an endpoint; requests beyond the script are answered normally. */
export type BlueskyScriptedResponse = {
  /** Answer this status with a JSON `{ error, message }` body; without it, the normal answer (after `delayMs`). */
  status?: number;
  error?: string;
  message?: string;
  /** Becomes the Retry-After header. */
  retryAfter?: string;
  /** Becomes the ratelimit-reset header (epoch seconds). */
  rateLimitReset?: string;
  /** Becomes the Location header (for redirects). */
  location?: string;
  /** The request takes effect as usual and only its answer is replaced: a reply lost after the write. */
  applied?: boolean;
  /** Waits this long before answering (for client timeouts). */
  delayMs?: number;
};

export type BlueskyRequest = { method: string; nsid: string; query: Record<string, string>; headers: IncomingHttpHeaders };
export type BlueskyBlob = { cid: string; bytes: Buffer; mimeType: string };
export type BlueskyRecord = { uri: string; cid: string; collection: string; rkey: string; value: Record<string, unknown> };

export type BlueskyServer = {
  /** The service URL (https, trusted by test processes). */
  url: string;
  handle: string;
  appPassword: string;
  did: string;
  records: BlueskyRecord[];
  blobs: BlueskyBlob[];
  /** Every request received, in order. */
  requests: BlueskyRequest[];
  script(endpoint: BlueskyEndpoint, responses: BlueskyScriptedResponse[]): void;
  close(): Promise<void>;
};

type Reply = { status: number; body: unknown; headers?: Record<string, string> };
type Received = { request: IncomingMessage; body: Buffer; query: Record<string, string> };

const postCollection = 'app.bsky.feed.post';
const maxBlobBytes = 2_000_000;
const maxTextGraphemes = 300;
const maxTextBytes = 3_000;
const tidPattern = /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/;
// RFC 3339 with a time zone, as atproto's datetime format requires.
const datetimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const defaultErrors: Record<number, [string, string]> = {
  400: ['InvalidRequest', 'Invalid request'],
  401: ['AuthenticationRequired', 'Authentication Required'],
  429: ['RateLimitExceeded', 'Rate Limit Exceeded'],
  500: ['InternalServerError', 'Internal Server Error'],
  502: ['UpstreamFailure', 'Upstream Failure'],
};
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

function failure(status: number, error?: string, message?: string): Reply {
  const [defaultError, defaultMessage] = defaultErrors[status] ?? ['InternalServerError', `The fake answered ${status}`];
  return { status, body: { error: error ?? defaultError, message: message ?? defaultMessage } };
}

function invalidPost(reason: string): Reply {
  return failure(400, 'InvalidRequest', `Invalid ${postCollection} record: ${reason}`);
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

function jsonOf(received: Received): Record<string, unknown> {
  if (!(received.request.headers['content-type'] ?? '').startsWith('application/json')) return {};
  try {
    const body: unknown = JSON.parse(received.body.toString('utf8'));
    return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function cidOf(bytes: Buffer | string): string {
  return `bafkrei${createHash('sha256').update(bytes).digest('hex').slice(0, 52)}`;
}

function randomDid(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  return `did:plc:${Array.from(randomBytes(24), (byte) => alphabet[byte % 32]).join('')}`;
}

/** Starts the fake on 127.0.0.1 (port 0) for one account, which logs in with its handle (or DID) and app password. */
export async function startBlueskyServer(options: { handle?: string; appPassword?: string } = {}): Promise<BlueskyServer> {
  const scripts = new Map<BlueskyEndpoint, BlueskyScriptedResponse[]>();
  const sessions = new Set<string>();

  const https = await startHttpsServer((request, response) => {
    answer(request, response).catch((error: unknown) => {
      console.error('bluesky fake failed', error);
      response.destroy();
    });
  });
  const server: BlueskyServer = {
    url: https.url,
    handle: options.handle ?? 'alice.test',
    appPassword: options.appPassword ?? 'abcd-efgh-ijkl-mnop',
    did: randomDid(),
    records: [],
    blobs: [],
    requests: [],
    script(endpoint, responses) {
      scripts.set(endpoint, [...(scripts.get(endpoint) ?? []), ...responses]);
    },
    close: () => https.close(),
  };

  function isOurRepo(repo: unknown): boolean {
    return repo === server.did || repo === server.handle;
  }

  function createSession(received: Received): Reply {
    const { identifier, password } = jsonOf(received);
    if (typeof identifier !== 'string' || typeof password !== 'string') {
      return failure(400, 'InvalidRequest', 'Input must have the properties "identifier" and "password"');
    }
    const known = identifier.toLowerCase() === server.handle.toLowerCase() || identifier === server.did;
    if (!known || password !== server.appPassword) return failure(401, 'AuthenticationRequired', 'Invalid identifier or password');
    const accessJwt = `fake-access-${randomUUID()}`;
    sessions.add(accessJwt);
    return {
      status: 200,
      body: { did: server.did, handle: server.handle, accessJwt, refreshJwt: `fake-refresh-${randomUUID()}`, active: true },
    };
  }

  function uploadBlob(received: Received): Reply {
    const mimeType = received.request.headers['content-type'];
    if (!mimeType) return failure(400, 'InvalidRequest', 'Request encoding (Content-Type) required but not provided');
    const size = received.body.length;
    if (size > maxBlobBytes) {
      const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)}MB`;
      return failure(400, 'BlobTooLarge', `This file is too large. It is ${megabytes(size)} but the maximum size is ${megabytes(maxBlobBytes)}.`);
    }
    const blob: BlueskyBlob = { cid: cidOf(received.body), bytes: received.body, mimeType };
    server.blobs.push(blob);
    return { status: 200, body: { blob: { $type: 'blob', ref: { $link: blob.cid }, mimeType, size } } };
  }

  /** What is wrong with an images embed, if anything. */
  function imagesProblem(embed: Record<string, unknown>): string | undefined {
    if (embed.$type !== 'app.bsky.embed.images') return 'Record/embed must be app.bsky.embed.images (the only embed this fake knows)';
    const { images } = embed;
    if (!Array.isArray(images) || images.length === 0 || images.length > 4) return 'Record/embed/images must be an array of 1 to 4 images';
    for (const [index, image] of images.entries()) {
      const at = `Record/embed/images/${index}`;
      if (!isObject(image)) return `${at} must be an object`;
      if (typeof image.alt !== 'string') return `${at} must have the property "alt"`;
      const blob = image.image;
      if (!isObject(blob) || blob.$type !== 'blob' || !isObject(blob.ref) || typeof blob.ref.$link !== 'string') return `${at}/image should be a blob ref`;
      const stored = server.blobs.find((candidate) => candidate.cid === (blob.ref as { $link: string }).$link);
      if (!stored) return `${at}/image refers to a blob that was not uploaded`;
      if (blob.mimeType !== stored.mimeType || blob.size !== stored.bytes.length) return `${at}/image does not match the uploaded blob`;
      if (!stored.mimeType.startsWith('image/')) return `${at}/image mime type should be image/*`;
      const ratio = image.aspectRatio;
      if (ratio !== undefined && !(isObject(ratio) && Number.isInteger(ratio.width) && Number.isInteger(ratio.height) && Number(ratio.width) > 0 && Number(ratio.height) > 0)) {
        return `${at}/aspectRatio must have positive integer width and height`;
      }
    }
    return undefined;
  }

  function createRecord(received: Received): Reply {
    const { repo, collection, rkey, record } = jsonOf(received);
    if (!isOurRepo(repo)) return failure(400, 'InvalidRequest', 'Input/repo must be the authenticated account');
    if (collection !== postCollection) return failure(400, 'InvalidRequest', `This fake only stores ${postCollection} records`);
    // A real PDS makes up a key when none is given; publishing always gives one, so this fake requires it.
    if (rkey === undefined) return failure(400, 'InvalidRequest', 'This fake needs an explicit rkey');
    if (typeof rkey !== 'string' || !tidPattern.test(rkey)) return failure(400, 'InvalidRequest', `Invalid TID record key: ${JSON.stringify(rkey)}`);
    if (!isObject(record)) return failure(400, 'InvalidRequest', 'Input/record must be an object');
    if (record.$type !== postCollection) return failure(400, 'InvalidRequest', `Invalid $type: expected ${postCollection}, got ${String(record.$type)}`);
    const { text, createdAt, embed } = record;
    if (typeof text !== 'string') return invalidPost('Record must have the property "text"');
    if (Array.from(graphemes.segment(text)).length > maxTextGraphemes) return invalidPost(`Record/text must not be longer than ${maxTextGraphemes} graphemes`);
    if (Buffer.byteLength(text) > maxTextBytes) return invalidPost(`Record/text must not be longer than ${maxTextBytes} characters`);
    if (typeof createdAt !== 'string' || !datetimePattern.test(createdAt)) return invalidPost('Record/createdAt must be an valid atproto datetime');
    if (embed !== undefined) {
      const problem = isObject(embed) ? imagesProblem(embed) : 'Record/embed must be an object';
      if (problem) return invalidPost(problem);
    }

    if (server.records.some((existing) => existing.rkey === rkey)) return failure(400, 'InvalidRequest', 'Record already exists');
    const uri = `at://${server.did}/${postCollection}/${rkey}`;
    const stored: BlueskyRecord = { uri, cid: cidOf(JSON.stringify(record)), collection: postCollection, rkey, value: record };
    server.records.push(stored);
    return { status: 200, body: { uri, cid: stored.cid, commit: { cid: cidOf(uri), rev: rkey }, validationStatus: 'valid' } };
  }

  function getRecord(received: Received): Reply {
    const { repo, collection, rkey } = received.query;
    if (!repo || !collection || !rkey) return failure(400, 'InvalidRequest', 'Params must have the properties "repo", "collection" and "rkey"');
    const found = isOurRepo(repo) ? server.records.find((record) => record.collection === collection && record.rkey === rkey) : undefined;
    if (!found) return failure(400, 'RecordNotFound', `Could not locate record: at://${repo}/${collection}/${rkey}`);
    return { status: 200, body: { uri: found.uri, cid: found.cid, value: found.value } };
  }

  const routes: Record<string, { method: string; endpoint: BlueskyEndpoint; handle: (received: Received) => Reply; auth: 'none' | 'required' | 'optional' }> = {
    'com.atproto.server.createSession': { method: 'POST', endpoint: 'createSession', handle: createSession, auth: 'none' },
    'com.atproto.repo.uploadBlob': { method: 'POST', endpoint: 'uploadBlob', handle: uploadBlob, auth: 'required' },
    'com.atproto.repo.createRecord': { method: 'POST', endpoint: 'createRecord', handle: createRecord, auth: 'required' },
    // Records are public; a session sent along must still be valid.
    'com.atproto.repo.getRecord': { method: 'GET', endpoint: 'getRecord', handle: getRecord, auth: 'optional' },
  };

  function authProblem(request: IncomingMessage, auth: 'none' | 'required' | 'optional'): Reply | undefined {
    const header = request.headers.authorization;
    if (auth === 'none' || (auth === 'optional' && !header)) return undefined;
    if (!header) return failure(401, 'AuthMissing', 'Authentication Required');
    const token = /^Bearer (.+)$/.exec(header)?.[1];
    return token && sessions.has(token) ? undefined : failure(401, 'InvalidToken', 'Token could not be verified');
  }

  function send(response: ServerResponse, reply: Reply) {
    response.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', ...reply.headers });
    response.end(JSON.stringify(reply.body));
  }

  async function answer(request: IncomingMessage, response: ServerResponse) {
    const body = await readBody(request);
    const url = new URL(request.url ?? '/', server.url);
    const nsid = /^\/xrpc\/([^/]+)$/.exec(url.pathname)?.[1] ?? '';
    const query = Object.fromEntries(url.searchParams);
    server.requests.push({ method: request.method ?? 'GET', nsid, query, headers: request.headers });
    const found = routes[nsid];
    if (!found) return send(response, failure(501, 'MethodNotImplemented', 'Method Not Implemented'));
    if (request.method !== found.method) return send(response, failure(400, 'InvalidRequest', `Incorrect HTTP method (${request.method})`));

    const next = scripts.get(found.endpoint)?.shift();
    if (next?.delayMs) {
      await sleep(next.delayMs);
      if (response.destroyed) return;
    }
    const handled = () => authProblem(request, found.auth) ?? found.handle({ request, body, query });
    if (next?.status === undefined) return send(response, handled());

    if (next.applied) handled();
    const headers: Record<string, string> = {};
    if (next.retryAfter) headers['retry-after'] = next.retryAfter;
    if (next.rateLimitReset) headers['ratelimit-reset'] = next.rateLimitReset;
    if (next.location) headers.location = next.location;
    send(response, { ...failure(next.status, next.error, next.message), headers });
  }

  return server;
}
