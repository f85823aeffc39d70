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
import { requestKeyOf } from '../request-key-of.ts';
import { presentCreatedWebhook, presentRedelivery, presentWebhook, presentWebhookDelivery, presentWebhookTest } from '../presenters/webhook.ts';
import { pageRequestOf, sendPage } from '../paging.ts';
import type { Schemas } from '../schemas.ts';

export function webhookRoutes(deps: Deps): Router {
  const router = Router();

  router.get('/webhooks', async (req, res) => {
    const page = await listWebhooks(deps, callerOf(res), pageRequestOf(req));
    sendPage(req, res, page, page.items.map(presentWebhook));
  });

  router.post('/webhooks', async (req, res) => {
    const webhook = await createWebhook(deps, callerOf(res), req.body as Schemas['CreateWebhookRequest'], requestKeyOf(res));
    res.status(201).location(`/api/v1/webhooks/${webhook.id}`).json(presentCreatedWebhook(webhook));
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
    sendPage(req, res, page, page.items.map(presentWebhookDelivery));
  });

  router.post('/webhooks/:id/test', async (req, res) => {
    res.json(presentWebhookTest(await testWebhook(deps, callerOf(res), req.params.id, requestKeyOf(res))));
  });

  router.post('/webhooks/:id/deliveries/:deliveryId/redeliver', async (req, res) => {
    const redelivery = await redeliverWebhookDelivery(deps, callerOf(res), req.params.id, req.params.deliveryId, requestKeyOf(res));
    res.status(202).location(`/api/v1/webhooks/${req.params.id}/deliveries`).json(presentRedelivery(redelivery));
  });

  return router;
}
