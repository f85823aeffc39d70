import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, primaryKey } from './common-properties.ts';
import { belongsToWorkspace } from './workspace.ts';

/**
 * A client's `Idempotency-Key` on a POST, per workspace: the request it was first used with (method, path and a
 * hash of the body) and, once that request has answered, the answer to replay. While the request runs the row holds
 * a lock (`lockId`, `lockedUntil`); a lock past its time belongs to a request whose api process died, so a retry may
 * take it over. Rows are deleted after `expiresAt` (see domain/idempotency).
 */
export const IdempotencyKey = defineEntity({
  name: 'IdempotencyKey',
  tableName: 'idempotency_keys',
  properties: {
    ...primaryKey,
    ...belongsToWorkspace,
    key: p.string().length(255),
    requestMethod: p.string().length(10),
    requestPath: p.text(),
    /** SHA-256 (hex) of the canonical request body. */
    requestHash: p.string().length(64),
    /** Set while the first request runs: only the holder may record the answer. */
    lockId: p.uuid().nullable(),
    lockedUntil: p.datetime().nullable(),
    responseStatus: p.integer().nullable(),
    /** The answer's headers worth replaying (content type, Location, Link, Retry-After). */
    responseHeaders: p.json<Record<string, string>>().nullable(),
    /** The answer's body as sent (every POST answers JSON text). */
    responseBody: p.text().nullable(),
    ...createdAt,
    expiresAt: p.datetime().index(),
  },
  uniques: [{ properties: ['workspaceId', 'key'] }],
});
export type IdempotencyKey = InferEntity<typeof IdempotencyKey>;
