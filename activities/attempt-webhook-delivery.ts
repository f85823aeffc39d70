import type { EntityManager } from '@mikro-orm/postgresql';
import { Webhook } from '../src/data/entities/webhook.ts';
import { WebhookDelivery } from '../src/data/entities/webhook-delivery.ts';
import { Workspace } from '../src/data/entities/workspace.ts';
import { WorkspaceEvent } from '../src/data/entities/workspace-event.ts';
import type { PostEventDetails } from '../src/domain/events/post-event.ts';
import { hasFeature, stoppedByPlan } from '../src/domain/workspaces/plans.ts';
import { postWebhook } from '../src/webhooks/post-webhook.ts';
import { webhookBody } from '../src/webhooks/webhook-body.ts';
import { signWebhook } from '../src/webhooks/webhook-signature.ts';
import type { ActivityDeps } from './index.ts';

export type DeliveryAttempt = {
  /**
   * delivered: a 2xx; gone: a 410 (the webhook is now inactive); skipped: the webhook is inactive or deleted;
   * unusable: the stored URL can never work; not-on-plan: the workspace no longer has webhooks. Only `failed` is
   * tried again later.
   */
  outcome: 'delivered' | 'failed' | 'gone' | 'skipped' | 'unusable' | 'not-on-plan';
  statusCode: number | null;
  error: string | null;
};

type LoggedAttempt = { attemptedAt: Date; statusCode: number | null; durationMs: number; succeeded: boolean; error: string | null };

// Receivers fetch the image after the fact; give them a week.
const imageLinkTtlSeconds = 7 * 24 * 60 * 60;

/** One attempt: check the plan, sign, POST, log the attempt, and act on the answer. */
export async function attemptWebhookDelivery(
  deps: ActivityDeps,
  input: { webhookId: string; eventId: string; deliveryId: string; attempt: number },
): Promise<DeliveryAttempt> {
  const em = deps.orm.em.fork();
  const webhook = await em.findOne(Webhook, input.webhookId);
  const event = await em.findOne(WorkspaceEvent, input.eventId);
  if (!webhook || !webhook.isActive || !event) return { outcome: 'skipped', statusCode: null, error: 'the webhook is inactive or deleted' };

  const { plan } = await em.findOneOrFail(Workspace, webhook.workspaceId);
  if (!hasFeature(plan, 'webhooks')) {
    const error = stoppedByPlan(plan, 'webhooks');
    await logAttempt(em, input, webhook, event, { attemptedAt: new Date(), statusCode: null, durationMs: 0, succeeded: false, error });
    return { outcome: 'not-on-plan', statusCode: null, error };
  }

  const imageKey = (event.details as PostEventDetails).imageKey;
  const body = webhookBody(event, imageKey ? await deps.storage.signedUrl(imageKey, imageLinkTtlSeconds) : null);
  const headers = signWebhook({
    secret: webhook.secretSealed ? deps.secrets.open(webhook.secretSealed) : null,
    deliveryId: input.deliveryId,
    timestamp: Math.floor(Date.now() / 1000),
    body,
  });
  const attemptedAt = new Date();
  const response = await postWebhook({ url: webhook.url, body, headers, timeoutMs: deps.webhooks.timeoutMs, allowPrivateNetworks: deps.webhooks.allowPrivateNetworks });
  const succeeded = response.statusCode !== null && response.statusCode >= 200 && response.statusCode < 300;
  const gone = response.statusCode === 410;

  await logAttempt(em, input, webhook, event, { attemptedAt, statusCode: response.statusCode, durationMs: Math.round(response.durationMs), succeeded, error: response.error }, gone);
  if (gone) deps.logger.warn({ webhookId: webhook.id }, 'webhook answered 410 Gone and was deactivated');
  const outcome = succeeded ? 'delivered' : gone ? 'gone' : response.permanent ? 'unusable' : 'failed';
  return { outcome, statusCode: response.statusCode, error: response.error };
}

/** Adds the attempt to the delivery log (once, however often the activity is retried) and touches the webhook. */
async function logAttempt(
  em: EntityManager,
  input: { deliveryId: string; attempt: number },
  webhook: Webhook,
  event: WorkspaceEvent,
  attempt: LoggedAttempt,
  deactivate = false,
): Promise<void> {
  await em.transactional(async (tx) => {
    const logged = await tx.count(WebhookDelivery, { deliveryId: input.deliveryId, attempt: input.attempt });
    if (logged === 0) {
      tx.create(WebhookDelivery, { webhookId: webhook.id, eventId: event.id, eventType: event.type, deliveryId: input.deliveryId, attempt: input.attempt, ...attempt });
    }
    await tx.nativeUpdate(Webhook, { id: webhook.id }, { lastTriggeredAt: attempt.attemptedAt, ...(deactivate ? { isActive: false } : {}) });
  });
}
