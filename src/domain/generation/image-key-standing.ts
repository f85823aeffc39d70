import type { EntityManager } from '@mikro-orm/postgresql';
import type { ImageProvider, ImageRequest } from '../../adapters/image-providers/image-provider.ts';
import { ImageKeyRejectedError } from '../../adapters/image-providers/provider-errors.ts';
import { messageOf } from '../../common/errors/caught.ts';
import type { Deps } from '../deps.ts';

// A provider that refuses the configured key fails every generation until the operator fixes it, which is the
// operator's problem, not the customer's: the worker says so in its log and records it in PostgreSQL, where every api
// replica's /ready reads it (the api never calls the provider itself); the next generation that succeeds clears it.

type GeneratedImage = Awaited<ReturnType<ImageProvider['generate']>>;

/**
 * Asks the provider for an image, keeping its key's standing. Recording is best effort: a database hiccup must not
 * fail a generation whose (paid) image is already made, nor hide the provider's own refusal.
 */
export async function generateKeepingKeyStanding(deps: Pick<Deps, 'images' | 'orm' | 'logger'>, request: ImageRequest): Promise<GeneratedImage> {
  const provider = deps.images.name;
  try {
    const image = await deps.images.generate(request);
    // The local renderer has no key: its generations skip the statement.
    if (provider !== 'local') await clearImageKeyRejection(deps.orm.em.fork(), provider).catch((error: unknown) => warn(deps, error));
    return image;
  } catch (error) {
    if (error instanceof ImageKeyRejectedError) {
      deps.logger.error({ provider, setting: error.setting, reason: error.reason }, `the image provider rejected its API key: fix ${error.setting}`);
      await recordImageKeyRejection(deps.orm.em.fork(), provider, error.setting).catch((failure: unknown) => warn(deps, failure));
    }
    throw error;
  }
}

function warn(deps: Pick<Deps, 'logger'>, error: unknown): void {
  deps.logger.warn({ error: messageOf(error) }, "the image provider key's standing was not recorded");
}

async function recordImageKeyRejection(em: EntityManager, provider: string, setting: string): Promise<void> {
  await em.execute(
    `insert into "image_key_rejections" ("provider", "setting", "rejected_at") values (?, ?, now())
     on conflict ("provider") do update set "setting" = excluded."setting", "rejected_at" = excluded."rejected_at"`,
    [provider, setting],
  );
}

async function clearImageKeyRejection(em: EntityManager, provider: string): Promise<void> {
  await em.execute(`delete from "image_key_rejections" where "provider" = ?`, [provider]);
}

/** Whether the provider last refused the configured key (and no generation has succeeded since). */
export async function imageKeyRejected(em: EntityManager, provider: ImageProvider['name']): Promise<boolean> {
  const rows = await em.execute<unknown[]>(`select 1 from "image_key_rejections" where "provider" = ?`, [provider]);
  return rows.length > 0;
}
