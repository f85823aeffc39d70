import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey, type ApiKeyScope } from '../../adapters/database/entities/api-key.ts';
import { AppError } from '../../common/errors/app-error.ts';
import type { Caller } from '../caller.ts';
import { scopeCovers } from './require-scope.ts';

type KeyAuthority = { scope: ApiKeyScope; expiresAt?: Date | null };

/**
 * A key hands out no more than it holds: the key it creates, regenerates or deletes has no wider scope and no longer
 * life than the calling key's own. Otherwise a key meant to expire in a week could mint a permanent one, or take the
 * owner's permanent key away (regenerate or delete it). The calling key is read in the transaction, as it is now.
 */
export async function requireKeyWithinCaller(em: EntityManager, caller: Caller, other: KeyAuthority, action: string): Promise<void> {
  const own = await em.findOne(ApiKey, { id: caller.apiKeyId, workspaceId: caller.workspaceId });
  if (!own) throw new AppError('unauthorized', 'This API key no longer exists.');
  if (!scopeCovers(own.scope, other.scope)) {
    throw new AppError('insufficient-scope', `This key's scope is \`${own.scope}\`: it cannot ${action} a key with the \`${other.scope}\` scope.`, {
      requiredScope: other.scope,
      keyScope: own.scope,
    });
  }
  if (own.expiresAt && (!other.expiresAt || other.expiresAt > own.expiresAt)) {
    const life = other.expiresAt ? `one that expires later (${other.expiresAt.toISOString()})` : 'a key that never expires';
    throw new AppError('insufficient-scope', `This key expires at ${own.expiresAt.toISOString()}: it cannot ${action} ${life}.`, { keyScope: own.scope });
  }
}
