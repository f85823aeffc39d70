import { proxyActivities, sleep, uuid4 } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { DeliveryAttempt } from '../activities/attempt-webhook-delivery.ts';

// The waits between attempts: the first attempt is immediate, then 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h and
// 24 h: nine attempts over 2 days 20 hours, in the spirit of Stripe's and Standard Webhooks' schedules.
export const retryWaits = ['1 minute', '5 minutes', '30 minutes', '2 hours', '6 hours', '12 hours', '24 hours', '24 hours'] as const;

// One HTTP attempt: the receiver's failure is a result, not an exception; only our own trouble (database, storage)
// is retried here, bounded at 5 attempts over about half a minute: the delivery's own ladder is the long retry, so a
// failure that persists ends this delivery, visibly in the Temporal UI, and touches no other webhook.
const { attemptWebhookDelivery } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumAttempts: 5 },
});

export type DeliverWebhookInput = {
  webhookId: string;
  eventId: string;
  /** Derived from (event, webhook) by the dispatch; runs started before it was passed draw one of their own. */
  deliveryId?: string;
};
export type DeliveryOutcome = { outcome: DeliveryAttempt['outcome'] | 'exhausted'; attempts: number; deliveryId: string };

/**
 * Delivers one event to one webhook: until a 2xx, a 410 (the webhook is then deactivated), the webhook being
 * disabled or deleted, a stored URL that can never work, the workspace no longer being on Growth (each logged with
 * the reason), or the end of the schedule. Every attempt carries the same delivery id, so the receiver
 * can drop duplicates.
 */
export async function deliverWebhook({ webhookId, eventId, deliveryId = uuid4() }: DeliverWebhookInput): Promise<DeliveryOutcome> {
  for (let attempt = 1; ; attempt += 1) {
    const result = await attemptWebhookDelivery({ webhookId, eventId, deliveryId, attempt });
    if (result.outcome !== 'failed') return { outcome: result.outcome, attempts: attempt, deliveryId };
    const wait = retryWaits[attempt - 1];
    if (!wait) return { outcome: 'exhausted', attempts: attempt, deliveryId };
    await sleep(wait);
  }
}
