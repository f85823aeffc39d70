import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { jsonOf, startScriptedServer, type Received, type Reply, type Route, type ScriptedResponse, type ScriptedServer } from './scripted-server.ts';

// A local stand-in for a Bluesky PDS, speaking the XRPC methods that publishing uses: createSession,
// refreshSession, uploadBlob, createRecord and getRecord, with the checks a real PDS makes (bearer session, blob
// size, post record shape, TID record keys, one record per key). Errors are XRPC's JSON `{ error, message }`. The
// tests against the reference PDS (test/adapters/social/bluesky-pds.test.ts) cover what that server does; this one is for
// what it cannot be made to do: rate limits, outages, slow and lost answers, expired tokens on demand.

type BlueskyEndpoint = 'createSession' | 'refreshSession' | 'uploadBlob' | 'createRecord' | 'getRecord';

/** A scripted answer whose error body is `{ error, message }` and whose `rateLimitReset` is ratelimit-reset (epoch seconds). */
type BlueskyScriptedResponse = ScriptedResponse & { error?: string; message?: string };

type BlueskyRequest = { method: string; nsid: string; query: Record<string, string>; headers: IncomingHttpHeaders };
type BlueskyBlob = { cid: string; bytes: Buffer; mimeType: string };
type BlueskyRecord = { uri: string; cid: string; collection: string; rkey: string; value: Record<string, unknown> };

/** `url` is the service URL. */
export type BlueskyServer = ScriptedServer<BlueskyEndpoint, BlueskyScriptedResponse, BlueskyRequest> & {
  handle: string;
  appPassword: string;
  did: string;
  records: BlueskyRecord[];
  blobs: BlueskyBlob[];
};

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

function nsidOf(url: URL): string {
  return /^\/xrpc\/([^/]+)$/.exec(url.pathname)?.[1] ?? '';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function cidOf(bytes: Buffer | string): string {
  return `bafkrei${createHash('sha256').update(bytes).digest('hex').slice(0, 52)}`;
}

/** A token shaped like the PDS's JWTs (unsigned: only this fake checks it), expiring in `lifetimeSeconds`. */
function tokenOf(kind: 'access' | 'refresh', lifetimeSeconds: number): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const exp = Math.floor(Date.now() / 1000) + lifetimeSeconds;
  return `${part({ alg: 'none', typ: 'JWT' })}.${part({ kind, exp, jti: randomUUID() })}.fake`;
}

function randomDid(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  return `did:plc:${Array.from(randomBytes(24), (byte) => alphabet[byte % 32]).join('')}`;
}

/** Starts the fake on 127.0.0.1 (port 0) for one account, which logs in with its handle (or DID) and app password. */
export async function startBlueskyServer(options: { handle?: string; appPassword?: string } = {}): Promise<BlueskyServer> {
  const sessions = new Set<string>();
  const refreshTokens = new Set<string>();

  const scripted = await startScriptedServer<BlueskyEndpoint, BlueskyScriptedResponse, BlueskyRequest>({
    name: 'bluesky',
    rateLimitResetHeader: 'ratelimit-reset',
    record: (request, url) => ({ method: request.method ?? 'GET', nsid: nsidOf(url), query: Object.fromEntries(url.searchParams), headers: request.headers }),
    route,
    failure: (status, { error, message }) => failure(status, error, message),
  });
  const server: BlueskyServer = {
    ...scripted,
    handle: options.handle ?? 'alice.test',
    appPassword: options.appPassword ?? 'abcd-efgh-ijkl-mnop',
    did: randomDid(),
    records: [],
    blobs: [],
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
    return { status: 200, body: newSession() };
  }

  function newSession() {
    const [accessJwt, refreshJwt] = [tokenOf('access', 2 * 3600), tokenOf('refresh', 90 * 86_400)];
    sessions.add(accessJwt);
    refreshTokens.add(refreshJwt);
    return { did: server.did, handle: server.handle, accessJwt, refreshJwt, active: true };
  }

  // The refresh token is rotated: the one used is spent.
  function refreshSession(received: Received): Reply {
    const token = /^Bearer (.+)$/.exec(received.request.headers.authorization ?? '')?.[1];
    if (!token || !refreshTokens.delete(token)) return failure(400, 'ExpiredToken', 'Token has been revoked');
    return { status: 200, body: newSession() };
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
      if (
        ratio !== undefined &&
        !(isObject(ratio) && Number.isInteger(ratio.width) && Number.isInteger(ratio.height) && Number(ratio.width) > 0 && Number(ratio.height) > 0)
      ) {
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
    const { repo, collection, rkey } = Object.fromEntries(received.url.searchParams);
    if (!repo || !collection || !rkey) return failure(400, 'InvalidRequest', 'Params must have the properties "repo", "collection" and "rkey"');
    const found = isOurRepo(repo) ? server.records.find((record) => record.collection === collection && record.rkey === rkey) : undefined;
    if (!found) return failure(400, 'RecordNotFound', `Could not locate record: at://${repo}/${collection}/${rkey}`);
    return { status: 200, body: { uri: found.uri, cid: found.cid, value: found.value } };
  }

  const routes: Record<string, { method: string; endpoint: BlueskyEndpoint; handle: (received: Received) => Reply; auth: 'none' | 'required' | 'optional' }> = {
    'com.atproto.server.createSession': { method: 'POST', endpoint: 'createSession', handle: createSession, auth: 'none' },
    'com.atproto.server.refreshSession': { method: 'POST', endpoint: 'refreshSession', handle: refreshSession, auth: 'none' },
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

  function route(request: IncomingMessage, url: URL): Route<BlueskyEndpoint> | Reply {
    const found = routes[nsidOf(url)];
    if (!found) return failure(501, 'MethodNotImplemented', 'Method Not Implemented');
    if (request.method !== found.method) return failure(400, 'InvalidRequest', `Incorrect HTTP method (${request.method})`);
    return { endpoint: found.endpoint, handle: (received) => authProblem(request, found.auth) ?? found.handle(received) };
  }

  return server;
}
