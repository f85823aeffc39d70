import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, primaryKey } from './common-properties.ts';
import { belongsToWorkspace } from './workspace.ts';

/**
 * A resource a request with an `Idempotency-Key` created, written in the transaction that created it: the effect and
 * its key are durable together. A retry of the request whose answer was lost (its api died before answering) finds
 * the resource here and answers with it instead of creating a second one. Kept as long as the key (`expiresAt`, see
 * domain/idempotency). Publications have their own record (PublicationRequest), which also holds the plan.
 */
export const RequestEffect = defineEntity({
  name: 'RequestEffect',
  tableName: 'request_effects',
  properties: {
    ...primaryKey,
    ...belongsToWorkspace,
    /** What names the request's key (requestFingerprint: a hash of the key and the request it is bound to). */
    key: p.string().length(255),
    /** What was created (`post`, ...), and its id. */
    resourceType: p.string().length(40),
    resourceId: p.uuid(),
    ...createdAt,
    expiresAt: p.datetime().index(),
  },
  uniques: [{ properties: ['workspaceId', 'key'] }],
});
export type RequestEffect = InferEntity<typeof RequestEffect>;
