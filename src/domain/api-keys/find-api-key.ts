import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey } from '../../adapters/database/entities/api-key.ts';
import { notFound } from '../../common/errors/app-error.ts';

export async function findApiKey(em: EntityManager, workspaceId: string, id: string): Promise<ApiKey> {
  const apiKey = await em.findOne(ApiKey, { id, workspaceId });
  if (!apiKey) throw notFound(`API key ${id}`);
  return apiKey;
}
