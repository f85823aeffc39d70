import { proxyActivities, sleep, uuid4 } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { DeliveryAttempt } from '../src/domain/webhooks/delivery-attempt.ts';
import { webhookAttempt } from './activity-options.ts';
import { retryWaits } from './webhook-retry-waits.ts';

// The delivery's own ladder is the long retry; the preset retries only our own trouble, briefly.
const { attemptWebhookDelivery } = proxyActivities<Activities>(webhookAttempt);

export type DeliverWebhookInput = {
  webhookId: string;
  eventId: string;
  /** Derived from (event, webhook) by the dispatch; runs started before it was passed draw one of their own. */
  deliveryId?: string;
};
export type DeliverWebhookResult = { outcome: DeliveryAttempt['outcome'] | 'exhausted'; attempts: number; deliveryId: string };

/**
 * Legacy: events are delivered by `deliverEvent`'s fan-out now; this type stays registered for the deliveries started
 * before (which may wait on the ladder for days) and can go once none is left. Delivers one event to one webhook: until a 2xx, a 410 (the webhook is then deactivated), the webhook being
 * disabled or deleted, a stored URL that can never work, the workspace no longer being on Growth (each logged with
 * the reason), or the end of the schedule. Every attempt carries the same delivery id, so the receiver
 * can drop duplicates.
 */
export async function deliverWebhook({ webhookId, eventId, deliveryId = uuid4() }: DeliverWebhookInput): Promise<DeliverWebhookResult> {
  for (let attempt = 1; ; attempt += 1) {
    const result = await attemptWebhookDelivery({ webhookId, eventId, deliveryId, attempt });
    if (result.outcome !== 'failed') return { outcome: result.outcome, attempts: attempt, deliveryId };
    const wait = retryWaits[attempt - 1];
    if (!wait) return { outcome: 'exhausted', attempts: attempt, deliveryId };
    await sleep(wait);
  }
}
