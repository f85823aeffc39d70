import type { EntityManager } from '@mikro-orm/postgresql';
import type { SecretBox } from '../../adapters/crypto/secret-box.ts';
import { RequestEffect } from '../../adapters/database/entities/request-effect.ts';
import { newId } from '../../adapters/database/new-id.ts';
import { AppError } from '../../common/errors/app-error.ts';
import { keyExpiresAt } from './claim-idempotency-key.ts';

// What a keyed request did, recorded in the transaction that did it (RequestEffect): a retry whose first answer was
// lost then answers with that instead of doing it a second time. `requestKey` is the request's requestFingerprint,
// undefined when it sent no Idempotency-Key.

/** An effect as recorded: what it was done to, and the secret its answer carries, if any. */
export type Effect = { resourceId: string; secret?: string | undefined };

/** What makes a resource and how to read it again. `noun` names it in the 404 of a retry (default: its type). */
export type Resource<T> = { type: string; find: (id: string) => Promise<T | null>; noun?: string };

/**
 * What `create` makes in `em`'s transaction, recorded under `requestKey`; or, when the same request created it
 * before, that resource as `find` reads it now (404 when it has been deleted since).
 */
export async function createOnce<T extends { id: string }>(
  em: EntityManager,
  workspaceId: string,
  requestKey: string | undefined,
  resource: Resource<T>,
  create: () => T | Promise<T>,
): Promise<T> {
  if (requestKey === undefined) return create();
  const before = await madeBefore(em, workspaceId, requestKey, resource);
  if (before !== undefined) return before;
  const made = await create();
  // The new row's id is given when it is flushed.
  await em.flush();
  await recordEffect(em, workspaceId, requestKey, resource.type, { resourceId: made.id });
  return made;
}

/**
 * The resource the request named by `requestKey` made before, as `find` reads it now (404 when it has been deleted
 * since); undefined when it made none. For work that must be skipped on a retry before createOnce is reached (a
 * platform's check of credentials, an upload to storage).
 */
export async function madeBefore<T>(em: EntityManager, workspaceId: string, requestKey: string | undefined, resource: Resource<T>): Promise<T | undefined> {
  if (requestKey === undefined) return undefined;
  const done = await effectOf(em, workspaceId, requestKey, resource.type);
  return done === undefined ? undefined : findAgain(resource, done.resourceId);
}

/**
 * createOnce for a resource whose answer carries a secret that is kept only as a hash (an API key, an OAuth state):
 * the secret is recorded with the effect, sealed by `box`, so a retry answers the same one.
 */
export async function issueOnce<T extends { id: string }>(
  em: EntityManager,
  box: SecretBox,
  workspaceId: string,
  requestKey: string | undefined,
  resource: Resource<T>,
  issue: () => Promise<{ resource: T; secret: string }>,
): Promise<{ resource: T; secret: string }> {
  if (requestKey === undefined) return issue();
  const done = await effectOf(em, workspaceId, requestKey, resource.type, box);
  if (done?.secret !== undefined) return { resource: await findAgain(resource, done.resourceId), secret: done.secret };
  const issued = await issue();
  await em.flush();
  await recordEffect(em, workspaceId, requestKey, resource.type, { resourceId: issued.resource.id, secret: box.seal(issued.secret) });
  return issued;
}

/** The effect of `type` the request named by `requestKey` recorded, if it did; its secret opened with `box`. */
export async function effectOf(em: EntityManager, workspaceId: string, requestKey: string, type: string, box?: SecretBox): Promise<Effect | undefined> {
  const effect = await em.findOne(RequestEffect, { workspaceId, key: requestKey, resourceType: type, expiresAt: { $gt: new Date() } });
  if (!effect) return undefined;
  return { resourceId: effect.resourceId, secret: typeof effect.secretSealed === 'string' && box ? box.open(effect.secretSealed) : undefined };
}

/**
 * Records what the request did, in the caller's transaction (`secret` sealed already). Two executions of one request
 * at once (one taking over from the other) cannot both record: the second fails on the key's unique index, and its
 * transaction with it.
 */
export async function recordEffect(em: EntityManager, workspaceId: string, requestKey: string, type: string, effect: Effect): Promise<void> {
  // A key past its lifetime may be used again, for another request.
  await em.nativeDelete(RequestEffect, { workspaceId, key: requestKey, expiresAt: { $lte: new Date() } });
  em.create(RequestEffect, {
    workspaceId,
    key: requestKey,
    resourceType: type,
    resourceId: effect.resourceId,
    secretSealed: effect.secret ?? null,
    expiresAt: keyExpiresAt(),
  });
}

/**
 * Records, before it is done, what the request is about to do where that cannot share a database transaction
 * (starting a workflow under an ID derived from `effect`): committed at once, and moved when the request settles on
 * another id. A retry finds it and does, or finds done, that same thing.
 */
export async function recordIntent(em: EntityManager, workspaceId: string, requestKey: string, type: string, effect: Effect): Promise<void> {
  await upsertEffect(em, { workspaceId, requestKey, type, resourceId: effect.resourceId }, 'always');
}

/**
 * The id of the work a request does under a workflow (a generation, a render): the one its first send recorded, or a
 * new one recorded now, before the work starts (recordIntent). A retry whose first answer was lost then runs the same
 * work again, which finds what its first run saved and does nothing twice; a request without a key gets a new id.
 */
export async function intendedWorkId(em: EntityManager, workspaceId: string, requestKey: string | undefined, type: string): Promise<string> {
  if (requestKey === undefined) return newId();
  // Two executions of one key at once (one taking over from the other) both end with the id the first recorded.
  await upsertEffect(em, { workspaceId, requestKey, type, resourceId: newId() }, 'when-expired');
  const recorded = await effectOf(em, workspaceId, requestKey, type);
  if (!recorded) throw new Error(`the ${type} recorded for a request key was not found just after`);
  return recorded.resourceId;
}

/** Records an effect under a key, committed at once: over what the key recorded before `always`, or only once that expired. */
async function upsertEffect(
  em: EntityManager,
  effect: { workspaceId: string; requestKey: string; type: string; resourceId: string },
  replace: 'always' | 'when-expired',
): Promise<void> {
  await em.execute(
    `insert into request_effects (id, workspace_id, key, resource_type, resource_id, secret_sealed, created_at, expires_at)
     values (?, ?, ?, ?, ?, null, now(), ?)
     on conflict (workspace_id, key) do update
        set resource_type = excluded.resource_type, resource_id = excluded.resource_id, expires_at = excluded.expires_at
      ${replace === 'when-expired' ? 'where request_effects.expires_at <= now()' : ''}`,
    [newId(), effect.workspaceId, effect.requestKey, effect.type, effect.resourceId, keyExpiresAt()],
    'run',
  );
}

async function findAgain<T>(resource: Resource<T>, id: string): Promise<T> {
  const found = await resource.find(id);
  if (!found)
    throw new AppError('not-found', `The ${resource.noun ?? resource.type.replace('-', ' ')} ${id}, which this request made, has been deleted since.`);
  return found;
}
