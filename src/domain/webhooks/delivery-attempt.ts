import type { Webhook } from '../../adapters/database/entities/webhook.ts';
import { isSuccessStatus, type WebhookPostResult } from '../../adapters/webhook-sender/post-webhook.ts';
import type { DeliveryOutcome } from '../../../workflows/contracts/deliver-event.ts';

// What one attempt of an event to a webhook came to: told from the receiver's answer, written to the delivery log,
// and what the delivery workflows act on (retry ladder, results).

export type DeliveryTarget = { webhook: Webhook; deliveryId: string };
export type TargetAttempt = { webhookId: string; deliveryId: string; outcome: DeliveryOutcome; statusCode: number | null; error: string | null };

export function outcomeOf(response: Pick<WebhookPostResult, 'statusCode' | 'permanent'>): DeliveryOutcome {
  if (isSuccessStatus(response.statusCode)) return 'delivered';
  if (response.statusCode === 410) return 'gone';
  return response.permanent ? 'unusable' : 'failed';
}
