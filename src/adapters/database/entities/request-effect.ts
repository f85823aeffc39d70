import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, primaryKey } from './common-properties.ts';
import { belongsToWorkspace } from './workspace.ts';

/**
 * What a request with an `Idempotency-Key` did (a resource it created, a secret it issued, the redelivery it
 * started), written in the transaction that did it: the effect and its key are durable together. A retry of the
 * request whose answer was lost (its api died before answering) finds the effect here and answers with it instead of
 * doing it again. Kept as long as the key (`expiresAt`, see domain/idempotency). Publications have their own record
 * (PublicationRequest), which also holds the plan.
 */
export const RequestEffect = defineEntity({
  name: 'RequestEffect',
  tableName: 'request_effects',
  properties: {
    ...primaryKey,
    ...belongsToWorkspace,
    /** What names the request's key (requestFingerprint: a hash of the key and the request it is bound to). */
    key: p.string().length(255),
    /** What was done (`post`, `api-key-secret`, ...), and to what: an id, or an id and a number (a redelivery). */
    resourceType: p.string().length(40),
    resourceId: p.string().length(80),
    /**
     * The secret the effect issued and its answer carries (an API key, an OAuth state), sealed (ENCRYPTION_KEYS):
     * only its hash is kept elsewhere, and a retry must answer the same secret.
     */
    secretSealed: p.text().nullable(),
    ...createdAt,
    expiresAt: p.datetime().index(),
  },
  uniques: [{ properties: ['workspaceId', 'key'] }],
});
export type RequestEffect = InferEntity<typeof RequestEffect>;
