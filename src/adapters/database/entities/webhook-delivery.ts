import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { primaryKey } from './common-properties.ts';
import { Webhook } from './webhook.ts';

/** One attempt to deliver one event to one webhook: the delivery log customers read to debug their endpoint. */
export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  properties: {
    ...primaryKey,
    webhookId: () => p.manyToOne(Webhook).mapToPk().fieldName('webhook_id').deleteRule('cascade'),
    eventId: p.uuid(),
    eventType: p.string().length(100),
    /** The same for every attempt of one event to one webhook (the X-Service-Delivery-Id header). */
    deliveryId: p.string().length(100),
    attempt: p.integer(),
    attemptedAt: p.datetime(),
    statusCode: p.integer().nullable(),
    durationMs: p.integer(),
    succeeded: p.boolean(),
    error: p.text().nullable(),
  },
  indexes: [
    {
      name: 'webhook_deliveries_webhook_attempted_index',
      expression: 'create index "webhook_deliveries_webhook_attempted_index" on "webhook_deliveries" ("webhook_id", "attempted_at" desc, "id" desc)',
    },
  ],
  // A retried activity records its attempt once.
  uniques: [{ properties: ['deliveryId', 'attempt'] }],
});
export type WebhookDelivery = InferEntity<typeof WebhookDelivery>;
