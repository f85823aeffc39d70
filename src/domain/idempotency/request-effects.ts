import type { EntityManager } from '@mikro-orm/postgresql';
import { RequestEffect } from '../../adapters/database/entities/request-effect.ts';
import { AppError } from '../../common/errors/app-error.ts';
import { keyExpiresAt } from './claim-idempotency-key.ts';

// A keyed request's creation, recorded in the transaction that creates it (RequestEffect): a retry whose first answer
// was lost then answers the same resource instead of creating a second one.

/**
 * What `create` makes in `em`'s transaction, recorded under `requestKey` (requestFingerprint) when the request sent an
 * Idempotency-Key; or, when the same request created it before, that resource as `find` reads it now (404 when it
 * has been deleted since).
 */
export async function createOnce<T extends { id: string }>(
  em: EntityManager,
  workspaceId: string,
  requestKey: string | undefined,
  resource: { type: string; find: (id: string) => Promise<T | null> },
  create: () => T | Promise<T>,
): Promise<T> {
  if (requestKey === undefined) return create();
  const created = await createdBy(em, workspaceId, requestKey, resource.type);
  if (created !== undefined) {
    const found = await resource.find(created);
    if (!found) throw new AppError('not-found', `The ${resource.type.replace('-', ' ')} ${created}, which this request created, has been deleted since.`);
    return found;
  }
  const made = await create();
  // The new row's id is given when it is flushed.
  await em.flush();
  await recordCreated(em, workspaceId, requestKey, resource.type, made.id);
  return made;
}

/** The id of the `resourceType` the request named by `requestKey` (requestFingerprint) created, if it did. */
async function createdBy(em: EntityManager, workspaceId: string, requestKey: string, resourceType: string): Promise<string | undefined> {
  const effect = await em.findOne(RequestEffect, { workspaceId, key: requestKey, resourceType, expiresAt: { $gt: new Date() } });
  return effect?.resourceId;
}

/**
 * Records that the request created the resource, in the caller's transaction. Two executions of one request at once
 * (one taking over from the other) cannot both record: the second fails on the key's unique index, and its
 * transaction with it.
 */
async function recordCreated(em: EntityManager, workspaceId: string, requestKey: string, resourceType: string, resourceId: string): Promise<void> {
  // A key past its lifetime may be used again, for another request.
  await em.nativeDelete(RequestEffect, { workspaceId, key: requestKey, expiresAt: { $lte: new Date() } });
  em.create(RequestEffect, {
    workspaceId,
    key: requestKey,
    resourceType,
    resourceId,
    expiresAt: keyExpiresAt(),
  });
}
