import { createHash } from 'node:crypto';

/** A POST that carries an `Idempotency-Key`, as the key's row identifies it. */
export type KeyedRequest = { workspaceId: string; key: string; method: string; path: string; hash: string };

/**
 * What names the keyed request's effects (a publication's plan, a workflow run) so that a retry finds them: a hash of
 * the key with the request it is bound to. Another request sent under the same key (which the key's row refuses
 * while it is kept) never matches another's effects.
 */
export function requestFingerprint(request: KeyedRequest): string {
  return createHash('sha256').update(`${request.key}\n${request.method} ${request.path}\n${request.hash}`).digest('hex');
}

/** An answer as stored for replay. */
export type StoredAnswer = { status: number; headers: Record<string, string>; body: string };

/** An uploaded file as the request parser hands it on (multipart). */
export type UploadedPart = { fieldname: string; buffer: Buffer };

/**
 * SHA-256 of the request body in a canonical form, so that a retry of the same request matches however the client
 * serialised it: JSON members in any order and any spacing, an absent body like `{}`, and multipart files by their
 * field name and bytes (a client draws a new boundary for each attempt, so the raw bytes differ).
 */
export function requestBodyHash(body: unknown, files: UploadedPart[] = []): string {
  const canonical = canonicalJson({
    body: body ?? {},
    files: files.map((file) => ({ field: file.fieldname, sha256: createHash('sha256').update(file.buffer).digest('hex') })),
  });
  return createHash('sha256').update(canonical).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, member]) => `${JSON.stringify(name)}:${canonicalJson(member)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}
