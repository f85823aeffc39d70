import type { Webhook } from '../../adapters/database/entities/webhook.ts';
import type { WebhookDelivery } from '../../adapters/database/entities/webhook-delivery.ts';
import type { Redelivery } from '../../domain/webhooks/redeliver-webhook-delivery.ts';
import type { WebhookTestResult } from '../../domain/webhooks/test-webhook.ts';
import type { Schemas } from '../schemas.ts';

/** Never the secret. */
export function presentWebhook(webhook: Webhook): Schemas['Webhook'] {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    isActive: webhook.isActive,
    lastTriggeredAt: webhook.lastTriggeredAt?.toISOString() ?? null,
    createdAt: webhook.createdAt.toISOString(),
  };
}

export function presentCreatedWebhook(webhook: Webhook): Schemas['CreateWebhookResponse'] {
  return { id: webhook.id, url: webhook.url, events: webhook.events, isActive: webhook.isActive, createdAt: webhook.createdAt.toISOString() };
}

/** One logged attempt of the delivery log. */
export function presentWebhookDelivery(delivery: WebhookDelivery): Schemas['WebhookDelivery'] {
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    eventType: delivery.eventType as Schemas['WebhookDelivery']['eventType'],
    deliveryId: delivery.deliveryId,
    attempt: delivery.attempt,
    attemptedAt: delivery.attemptedAt.toISOString(),
    statusCode: delivery.statusCode ?? null,
    durationMs: delivery.durationMs,
    succeeded: delivery.succeeded,
    error: delivery.error ?? null,
  };
}

/** What the receiver answered the test event. */
export function presentWebhookTest(result: WebhookTestResult): Schemas['TestWebhookResponse'] {
  const { deliveryId, statusCode, durationMs, succeeded, error, responseBody } = result;
  return { deliveryId, statusCode, durationMs, succeeded, error, responseBody };
}

export function presentRedelivery(redelivery: Redelivery): Schemas['RedeliverWebhookDeliveryResponse'] {
  return { deliveryId: redelivery.deliveryId, attempt: redelivery.attempt };
}
