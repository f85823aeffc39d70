import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/activity-signatures.ts';
import { webhookAttempt } from './contracts/activity-options.ts';
import type { RedeliverWebhookInput, RedeliveryResult } from './contracts/redeliver-webhook.ts';

// The customer asked for one more attempt, so it is tried once: no ladder. Our own trouble is retried (bounded) by
// the preset; a receiver's failure is logged and the customer redelivers again if they want.
const { attemptWebhookDelivery } = proxyActivities<Activities>(webhookAttempt);

/**
 * Sends a logged delivery again (`POST /webhooks/{id}/deliveries/{deliveryId}/redeliver`) under its own delivery id,
 * as attempt `attempt` of the delivery log. Its workflow ID names the delivery and the attempt, so the same attempt
 * can never be sent twice.
 */
export async function redeliverWebhook(input: RedeliverWebhookInput): Promise<RedeliveryResult> {
  return attemptWebhookDelivery(input);
}
