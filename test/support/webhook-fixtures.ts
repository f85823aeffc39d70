import type { Config } from '../../src/config.ts';
import { createSecretBox } from '../../src/adapters/crypto/secret-box.ts';
import { Webhook } from '../../src/adapters/database/entities/webhook.ts';
import type { Database } from '../../src/adapters/database/orm.ts';

/** A webhook written straight to the database (for workflow tests that run without the api). */
export async function createWebhookFixture(
  orm: Database,
  config: Config,
  webhook: { workspaceId: string; url: string; secret?: string; events?: string },
): Promise<Webhook> {
  const em = orm.em.fork();
  const row = em.create(Webhook, {
    workspaceId: webhook.workspaceId,
    url: webhook.url,
    events: webhook.events ?? 'post.published,post.failed',
    secretSealed: webhook.secret ? createSecretBox(config.secrets.encryptionKeys).seal(webhook.secret) : null,
    isActive: true,
  });
  await em.flush();
  return row;
}
