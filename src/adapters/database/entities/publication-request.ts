import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, primaryKey } from './common-properties.ts';
import { belongsToPost } from './post.ts';
import { belongsToWorkspace } from './workspace.ts';

/**
 * The publication a request with an `Idempotency-Key` planned, written in the plan's own transaction: the effect and
 * its key are durable together. A retry of the request finds it and gets the same publication, even when the api that
 * sent the first one died before answering, or the run that recorded it has ended and a new one was started. Kept as
 * long as the key (`expiresAt`, see domain/idempotency).
 */
export const PublicationRequest = defineEntity({
  name: 'PublicationRequest',
  tableName: 'publication_requests',
  properties: {
    ...primaryKey,
    ...belongsToWorkspace,
    /** What names the request's key (requestFingerprint: a hash of the key and the request it is bound to). */
    key: p.string().length(255),
    ...belongsToPost,
    publicationId: p.string().length(100),
    /** The plan as first recorded (its targets, when, whether scheduled). */
    plan: p.json<{ publishAt: string; scheduled: boolean; targetIds: string[] }>(),
    ...createdAt,
    expiresAt: p.datetime().index(),
  },
  uniques: [{ properties: ['workspaceId', 'key'] }],
});
export type PublicationRequest = InferEntity<typeof PublicationRequest>;
