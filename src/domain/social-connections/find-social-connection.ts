import type { EntityManager } from '@mikro-orm/postgresql';
import { SocialConnection } from '../../adapters/database/entities/social-connection.ts';
import { notFound } from '../../common/errors/app-error.ts';

export async function findSocialConnection(em: EntityManager, workspaceId: string, id: string): Promise<SocialConnection> {
  const connection = await em.findOne(SocialConnection, { id, workspaceId });
  if (!connection) throw notFound(`Social connection ${id}`);
  return connection;
}
