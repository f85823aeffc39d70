import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { multipartPartsOf } from './multipart-parts.ts';
import { jsonOf, type Received, type Reply } from './scripted-server.ts';

// What Meta's fakes share (Threads, Instagram, Facebook): Graph API's error bodies
// (https://developers.facebook.com/docs/graph-api/guides/error-handling): `{error: {message, type, code,
// error_subcode, fbtrace_id}}`; the OAuth code exchange's flat `{error_type, code, error_message}`; the request's
// parameters, wherever Graph API takes them; the tokens both platforms issue and check the same way; the consent
// page's redirect back; and the lost answer after a write.

const defaults: Record<number, { code: number; message: string; type: string }> = {
  400: { code: 100, message: 'Invalid parameter', type: 'OAuthException' },
  401: { code: 190, message: 'Invalid OAuth access token - Cannot parse access token', type: 'OAuthException' },
  429: { code: 4, message: 'Application request limit reached', type: 'OAuthException' },
  500: { code: 1, message: 'An unknown error has occurred.', type: 'OAuthException' },
  503: { code: 2, message: 'Service temporarily unavailable', type: 'OAuthException' },
};

export type GraphErrorOverrides = {
  code?: number | undefined;
  subcode?: number | undefined;
  message?: string | undefined;
  /** `error_user_title` and `error_user_msg`, which some errors carry for the person using the app. */
  userTitle?: string | undefined;
  userMessage?: string | undefined;
};

export function graphError(status: number, overrides: GraphErrorOverrides = {}): Reply {
  const usual = defaults[status] ?? { code: 1, message: `The fake answered ${status}`, type: 'OAuthException' };
  const error: Record<string, unknown> = { message: overrides.message ?? usual.message, type: usual.type, code: overrides.code ?? usual.code };
  if (overrides.subcode !== undefined) error.error_subcode = overrides.subcode;
  if (status >= 500) error.is_transient = true;
  if (overrides.userTitle !== undefined) error.error_user_title = overrides.userTitle;
  if (overrides.userMessage !== undefined) error.error_user_msg = overrides.userMessage;
  error.fbtrace_id = randomBytes(8).toString('base64url');
  return { status, body: { error } };
}

export const invalidParameter = (message: string) => graphError(400, { code: 100, message });

export const noSuchObject = (id: string) =>
  graphError(400, {
    code: 100,
    subcode: 33,
    message: `Unsupported request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
  });

/** A token without a permission the endpoint requires (the endpoint's page lists them). */
export const missingPermission = () => graphError(403, { code: 10, message: '(#10) Application does not have permission for this action' });

// https://developers.facebook.com/docs/graph-api/overview/rate-limiting#error-codes: a scripted rate limit with only
// its code gets the code's own message.
const rateLimitMessages: Partial<Record<number, string>> = {
  4: 'Application request limit reached',
  17: 'User request limit reached',
  32: 'Page request limit reached',
  613: 'Calls to this API have exceeded the rate limit.',
};

/** A scripted failure's Graph error: its `code`, `subcode` and `message`, a rate limit's code with that code's message. */
export function scriptedGraphError(status: number, { code, subcode, message }: Pick<GraphErrorOverrides, 'code' | 'subcode' | 'message'>): Reply {
  return graphError(status, { code, subcode, message: message ?? (code === undefined ? undefined : rateLimitMessages[code]) });
}

/** A field the node does not serve: Graph API refuses the whole read. */
const noSuchField = (field: string, node: string) => invalidParameter(`(#100) Tried accessing nonexisting field (${field}) on node type (${node})`);

/**
 * The first asked field the node does not serve, as Graph API's refusal. A field the platform has but a fake does not
 * model is refused the same way, so that a test finds out at once rather than reading a field that is never there.
 */
export function unservedField(fields: readonly string[], served: readonly string[], node: string): Reply | undefined {
  const unknown = fields.find((field) => !served.includes(field));
  return unknown === undefined ? undefined : noSuchField(unknown, node);
}

/** The fields asked for, and `id`, which Graph API always adds to a node; absent values are left out, as Graph API does. */
export function pick(all: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(all).filter(([name, value]) => (name === 'id' || fields.includes(name)) && value !== undefined));
}

/** A Unix time parameter (seconds, or a date Graph API's strtotime would take) in ms; null when absent, NaN when unreadable. */
export function timeParam(params: URLSearchParams, name: string): number | null {
  const value = params.get(name);
  if (value === null) return null;
  return /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value);
}

/**
 * One page of a Graph API list (https://developers.facebook.com/docs/graph-api/results): `limit` a page (25 unless
 * asked) from the `after` cursor on, with `paging.cursors`, and `paging.next` while more remain; or the refusal of an
 * unreadable limit or cursor.
 */
export function listPage<T>(url: URL, items: readonly T[], json: (item: T) => unknown): Reply {
  const params = url.searchParams;
  const limit = Number(params.get('limit') ?? 25);
  const offset = params.has('after') ? Number(Buffer.from(params.get('after') ?? '', 'base64url').toString('utf8')) : 0;
  if (!Number.isInteger(limit) || limit < 1 || !Number.isInteger(offset) || offset < 0) return invalidParameter('Invalid limit or cursor');
  const page = items.slice(offset, offset + limit);
  const cursor = (at: number) => Buffer.from(String(at)).toString('base64url');
  const paging: Record<string, unknown> = { cursors: { before: cursor(offset), after: cursor(offset + page.length) } };
  if (offset + page.length < items.length) {
    const next = new URL(url);
    next.searchParams.set('after', cursor(offset + page.length));
    paging.next = next.toString();
  }
  return { status: 200, body: { data: page.map(json), paging } };
}

/** The OAuth code exchange's own error body: flat, not Graph API's. */
export const oauthRefusal = (message: string): Reply => ({ status: 400, body: { error_type: 'OAuthException', code: 400, error_message: message } });

/** Graph API's timestamps: ISO 8601 with a +0000 offset. */
export function graphTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+0000');
}

/** The request's parameters: its query string and, for a form body, the form's fields (Graph API takes either). */
export function paramsOf({ url, request, body }: Received): URLSearchParams {
  const params = new URLSearchParams(url.search);
  if ((request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
    for (const [name, value] of new URLSearchParams(body.toString('utf8'))) params.set(name, value);
  }
  return params;
}

/** As `paramsOf`, and a JSON body's fields too (Graph API takes JSON bodies; Instagram's pages send them). */
export function paramsWithJsonOf(received: Received): URLSearchParams {
  const params = paramsOf(received);
  for (const [name, value] of Object.entries(jsonOf(received))) {
    params.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return params;
}

/** As `paramsWithJsonOf`, and a multipart form's text fields too (the pages' `curl -F` samples send multipart); undefined for a multipart body that does not parse. */
export async function formParamsOf(received: Received): Promise<URLSearchParams | undefined> {
  const params = paramsWithJsonOf(received);
  try {
    for (const part of await multipartPartsOf(received)) if (part.value !== undefined) params.set(part.name, part.value);
  } catch {
    return undefined;
  }
  return params;
}

/** The `fields` a read asks for, or the given default when it asks for none. */
export function fieldsOf(params: URLSearchParams, fallback: readonly string[]): string[] {
  const asked = (params.get('fields') ?? '')
    .split(',')
    .map((field) => field.trim())
    .filter(Boolean);
  return asked.length > 0 ? asked : [...fallback];
}

export type MetaToken = {
  kind: 'short' | 'long';
  userId: string;
  issuedAt: number;
  expiresAt: number;
  scopes: Set<string>;
  /** A Facebook Page token's Page (the token acts as that Page); undefined for a user's token. */
  pageId?: string | undefined;
};

/** The token's holder, or the Graph error Meta answers for a missing, unknown or expired token (in the query, a form or Bearer). */
export function tokenHolder(tokens: Map<string, MetaToken>, params: URLSearchParams, request: IncomingMessage, kind?: MetaToken['kind']): MetaToken | Reply {
  const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
  return tokenNamed(tokens, params.get('access_token') ?? bearer ?? '', kind);
}

/** As `tokenHolder`, for a token the request carries elsewhere (Facebook's upload endpoint takes it in `Authorization: OAuth`). */
export function tokenNamed(tokens: Map<string, MetaToken>, value: string, kind?: MetaToken['kind']): MetaToken | Reply {
  const found = tokens.get(value);
  if (!found || (kind && found.kind !== kind)) return graphError(400, { code: 190, message: 'Invalid OAuth access token - Cannot parse access token' });
  if (found.expiresAt <= Date.now()) {
    return graphError(400, {
      code: 190,
      subcode: 463,
      message: `Error validating access token: Session has expired on ${new Date(found.expiresAt).toUTCString()}.`,
    });
  }
  return found;
}

/** The consent page's answer: back to redirect_uri with the code and the state, and a fragment appended: "#_" (Threads and Instagram both do), "#_=_" (Facebook Login). */
export function redirectWithCode(redirectUri: string, code: string, state: string | null, fragment = '_'): Reply {
  const target = new URL(redirectUri);
  target.searchParams.set('code', code);
  if (state !== null) target.searchParams.set('state', state);
  return { status: 302, body: {}, headers: { location: `${target.toString()}#${fragment}` } };
}

/** Holds the answer until the client hangs up: the write took effect, and the client never learns it. */
export async function afterClientGivesUp(request: IncomingMessage): Promise<void> {
  const { socket } = request;
  if (!socket.destroyed) await new Promise((resolve) => socket.once('close', resolve));
}
