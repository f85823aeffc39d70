import type { EntityManager } from '@mikro-orm/postgresql';
import { RequestEffect } from '../../adapters/database/entities/request-effect.ts';
import { keyLifetimeHours } from './claim-idempotency-key.ts';

// A keyed request's creation, recorded in the transaction that creates: `createdBy` before creating, `recordCreated`
// beside the new row. A retry whose first answer was lost then answers the same resource (RequestEffect).

/** The id of the `resourceType` the request named by `requestKey` (requestFingerprint) created, if it did. */
export async function createdBy(em: EntityManager, workspaceId: string, requestKey: string, resourceType: string): Promise<string | undefined> {
  const effect = await em.findOne(RequestEffect, { workspaceId, key: requestKey, resourceType, expiresAt: { $gt: new Date() } });
  return effect?.resourceId;
}

/**
 * Records that the request created the resource, in the caller's transaction. Two executions of one request at once
 * (one taking over from the other) cannot both record: the second fails on the key's unique index, and its
 * transaction with it.
 */
export async function recordCreated(em: EntityManager, workspaceId: string, requestKey: string, resourceType: string, resourceId: string): Promise<void> {
  // A key past its lifetime may be used again, for another request.
  await em.nativeDelete(RequestEffect, { workspaceId, key: requestKey, expiresAt: { $lte: new Date() } });
  em.create(RequestEffect, {
    workspaceId,
    key: requestKey,
    resourceType,
    resourceId,
    expiresAt: new Date(Date.now() + keyLifetimeHours * 3_600_000),
  });
}
