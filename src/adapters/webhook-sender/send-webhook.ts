import type { SecretBox } from '../crypto/secret-box.ts';
import type { Webhook } from '../database/entities/webhook.ts';
import { postWebhook, type WebhookPostResult } from './post-webhook.ts';
import { signWebhook } from './webhook-signature.ts';

/** What sending needs: the key that opens webhook secrets, and the delivery rules (timeout, private networks). */
export type WebhookSender = { secrets: SecretBox; webhooks: { allowPrivateNetworks: boolean; timeoutMs: number } };

/**
 * Sends one message to a webhook as every delivery is sent (events, redeliveries, the test event): signed with the
 * webhook's secret when it has one, under `deliveryId` and `timestamp` (unix seconds), by `postWebhook`'s rules.
 */
export async function sendWebhook(
  sender: WebhookSender,
  webhook: Pick<Webhook, 'url' | 'secretSealed'>,
  message: { deliveryId: string; timestamp: number; body: string },
): Promise<WebhookPostResult> {
  const secret = webhook.secretSealed ? sender.secrets.open(webhook.secretSealed) : null;
  const headers = signWebhook({ secret, ...message });
  return postWebhook({
    url: webhook.url,
    body: message.body,
    headers,
    timeoutMs: sender.webhooks.timeoutMs,
    allowPrivateNetworks: sender.webhooks.allowPrivateNetworks,
  });
}
