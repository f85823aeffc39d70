import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAndUpdatedAt, primaryKey } from './common-properties.ts';
import { belongsToWorkspace } from './workspace.ts';

/** A customer's HTTPS endpoint that receives the events it subscribes to. */
export const Webhook = defineEntity({
  name: 'Webhook',
  tableName: 'webhooks',
  properties: {
    ...primaryKey,
    ...belongsToWorkspace,
    url: p.text(),
    /** Subscribed event names, comma-separated as in the API (e.g. `post.published,post.failed`). */
    events: p.text(),
    /** The signing secret sealed with the current key of ENCRYPTION_KEYS (it is needed to sign); null for unsigned webhooks. */
    secretSealed: p.text().nullable(),
    isActive: p.boolean().default(true),
    lastTriggeredAt: p.datetime().nullable(),
    /**
     * Its latest delivery attempt took a second or more (or is taking it): an event's first round then sends to it
     * from an activity of its own instead of the workflow task's local activity (src/domain/webhooks/delivery-attempt.ts).
     */
    answersSlowly: p.boolean().default(false),
    ...createdAndUpdatedAt,
  },
  indexes: [{ properties: ['workspaceId', 'createdAt'] }],
});
export type Webhook = InferEntity<typeof Webhook>;
