import type { EntityManager } from '@mikro-orm/postgresql';
import { Webhook } from '../../adapters/database/entities/webhook.ts';
import { notFound } from '../../common/errors/app-error.ts';

export async function findWebhook(em: EntityManager, workspaceId: string, id: string): Promise<Webhook> {
  const webhook = await em.findOne(Webhook, { id, workspaceId });
  if (!webhook) throw notFound(`Webhook ${id}`);
  return webhook;
}
