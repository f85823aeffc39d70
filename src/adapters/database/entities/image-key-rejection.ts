import { defineEntity, p } from '@mikro-orm/postgresql';

/**
 * An image provider that refused the configured API key (401), as the worker last saw it: every generation fails
 * until the operator fixes `setting`. Written by whichever worker met the refusal, deleted by the next generation that
 * succeeds, read by every api replica for /ready; one row per provider, so replicas agree without talking.
 */
export const ImageKeyRejection = defineEntity({
  name: 'ImageKeyRejection',
  tableName: 'image_key_rejections',
  properties: {
    provider: p.text().primary(),
    /** The variable to fix, e.g. OPENAI_IMAGES_API_KEY. */
    setting: p.text(),
    rejectedAt: p.datetime(),
  },
});
