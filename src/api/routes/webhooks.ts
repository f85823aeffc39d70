import { Router } from 'express';
import type { Deps } from '../../domain/deps.ts';
import { createWebhook } from '../../domain/webhooks/create-webhook.ts';
import { deleteWebhook } from '../../domain/webhooks/delete-webhook.ts';
import { listWebhookDeliveries } from '../../domain/webhooks/list-webhook-deliveries.ts';
import { listWebhooks } from '../../domain/webhooks/list-webhooks.ts';
import { redeliverWebhookDelivery } from '../../domain/webhooks/redeliver-webhook-delivery.ts';
import { testWebhook } from '../../domain/webhooks/test-webhook.ts';
import { updateWebhook } from '../../domain/webhooks/update-webhook.ts';
import { callerOf } from '../caller-of.ts';
import { presentWebhook } from '../presenters/webhook.ts';
import { pageRequestOf, sendPage } from '../paging.ts';
import type { Schemas } from '../schemas.ts';

export function webhookRoutes(deps: Deps): Router {
  const router = Router();

  router.get('/webhooks', async (req, res) => {
    const page = await listWebhooks(deps, callerOf(res), pageRequestOf(req));
    sendPage(req, res, page, page.items.map(presentWebhook));
  });

  router.post('/webhooks', async (req, res) => {
    const webhook = await createWebhook(deps, callerOf(res), req.body as Schemas['CreateWebhookRequest']);
    const body: Schemas['CreateWebhookResponse'] = {
      id: webhook.id,
      url: webhook.url,
      events: webhook.events,
      isActive: webhook.isActive,
      createdAt: webhook.createdAt.toISOString(),
    };
    res.status(201).location(`/api/v1/webhooks/${webhook.id}`).json(body);
  });

  router.put('/webhooks/:id', async (req, res) => {
    res.json(presentWebhook(await updateWebhook(deps, callerOf(res), req.params.id, req.body as Schemas['UpdateWebhookRequest'])));
  });

  router.delete('/webhooks/:id', async (req, res) => {
    await deleteWebhook(deps, callerOf(res), req.params.id);
    res.status(204).end();
  });

  router.get('/webhooks/:id/deliveries', async (req, res) => {
    const page = await listWebhookDeliveries(deps, callerOf(res), req.params.id, pageRequestOf(req));
    const body: Schemas['WebhookDelivery'][] = page.items.map((delivery) => ({
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
    }));
    sendPage(req, res, page, body);
  });

  router.post('/webhooks/:id/test', async (req, res) => {
    const body: Schemas['TestWebhookResponse'] = await testWebhook(deps, callerOf(res), req.params.id);
    res.json(body);
  });

  router.post('/webhooks/:id/deliveries/:deliveryId/redeliver', async (req, res) => {
    const body: Schemas['RedeliverWebhookDeliveryResponse'] = await redeliverWebhookDelivery(deps, callerOf(res), req.params.id, req.params.deliveryId);
    res.status(202).location(`/api/v1/webhooks/${req.params.id}/deliveries`).json(body);
  });

  return router;
}
