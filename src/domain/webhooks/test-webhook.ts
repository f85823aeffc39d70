import { randomUUID } from 'node:crypto';
import { v5 } from 'uuid';
import { isSuccessStatus } from '../../adapters/webhook-sender/post-webhook.ts';
import { sendWebhook } from '../../adapters/webhook-sender/send-webhook.ts';
import { testEventBody } from '../../adapters/webhook-sender/test-event-body.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { requireFeature } from '../workspaces/plans.ts';
import { findWebhook } from '../find-in-workspace.ts';

export type WebhookTestResult = {
  deliveryId: string;
  statusCode: number | null;
  durationMs: number;
  succeeded: boolean;
  error: string | null;
  /** The first characters of the receiver's answer, to show the customer what their endpoint said. */
  responseBody: string;
};

// The namespace of test delivery ids derived from an Idempotency-Key (a fixed random UUID).
const retriedTestNamespace = 'c5f3a6f4-4f0e-4a47-9d0f-3f1f5b2b7e21';

// Enough to show an endpoint's error message; the delivery log keeps nothing of a test, so this is all there is.
const shownResponseCharacters = 1024;

/**
 * Sends a signed `webhook.test` event to the webhook's URL now and reports the receiver's answer. Nothing changes
 * before or after (no log row, no `lastTriggeredAt`, no deactivation on 410), so there is no side effect to make
 * durable and no workflow: it is one HTTP call made while the client waits, under the rules of a real delivery
 * (same headers and signatures, SSRF guard, no redirects, the delivery timeout). Works on inactive webhooks, so an
 * endpoint can be checked before the webhook is turned back on.
 */
export async function testWebhook(deps: Deps, caller: Caller, webhookId: string, requestKey?: string): Promise<WebhookTestResult> {
  requireFeature(caller.plan, 'webhooks');
  const webhook = await findWebhook(deps.orm.em.fork(), caller.workspaceId, webhookId);
  const sentAt = new Date();
  const body = testEventBody({ workspaceId: webhook.workspaceId, webhookId: webhook.id, sentAt });
  // Not derived from an event: a test is none, and receivers that drop duplicates must not drop the next test. A
  // keyed test sent again (its api died before answering) goes under the same id, so the receiver sees one test.
  const deliveryId = requestKey === undefined ? randomUUID() : v5(requestKey, retriedTestNamespace);
  const answer = await sendWebhook(deps, webhook, { deliveryId, timestamp: Math.floor(sentAt.getTime() / 1000), body });
  return {
    deliveryId,
    statusCode: answer.statusCode,
    durationMs: answer.durationMs,
    succeeded: isSuccessStatus(answer.statusCode),
    error: answer.error,
    responseBody: [...answer.responseBody].slice(0, shownResponseCharacters).join(''),
  };
}
