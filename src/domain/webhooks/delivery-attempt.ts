import type { Webhook } from '../../adapters/database/entities/webhook.ts';
import { isSuccessStatus, type WebhookPostResult } from '../../adapters/webhook-sender/post-webhook.ts';
import type { DeliveryOutcome } from '../../../workflows/contracts/deliver-event.ts';

// What one attempt of an event to a webhook came to: told from the receiver's answer, written to the delivery log,
// and what the delivery workflows act on (retry ladder, results).

export type DeliveryTarget = { webhook: Webhook; deliveryId: string };
export type TargetAttempt = { webhookId: string; deliveryId: string; outcome: DeliveryOutcome; statusCode: number | null; error: string | null };

/**
 * A receiver that takes this long to answer (or to time out) is slow: an event's first round, a local activity that
 * holds one of the worker's workflow task slots while it runs, sends to it no longer, and hands over after this long
 * the requests still unanswered (attemptDeliveriesWithin, in the activities). It gets the event from an ordinary activity started
 * right after (the same attempt), so a slow customer endpoint holds an activity slot for its own deliveries instead
 * of the slots every workflow needs, and the other receivers of the event and of every other event keep their pace.
 * A second: well above a healthy endpoint's answer, well below the request timeout.
 */
export const slowAnswerMs = 1000;

export function outcomeOf(response: Pick<WebhookPostResult, 'statusCode' | 'permanent'>): DeliveryOutcome {
  if (isSuccessStatus(response.statusCode)) return 'delivered';
  if (response.statusCode === 410) return 'gone';
  return response.permanent ? 'unusable' : 'failed';
}
