import type { Post } from '../../src/adapters/database/entities/post.ts';
import type { Webhook } from '../../src/adapters/database/entities/webhook.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { createPostFixture } from './post-fixtures.ts';
import { createWebhookFixture } from './webhook-fixtures.ts';
import { startWorkflowTestBed, type WorkflowTestBed } from './workflow-test-bed.ts';

/** What the webhooks of a WebhookTestBed sign with, and its receiver checks. */
export const webhookSecret = 'a-webhook-signing-secret';

export type WebhookTestBed = WorkflowTestBed & {
  /** A customer's endpoint on loopback, which the bed is allowed to deliver to. */
  receiver: WebhookReceiver;
  /** A post, and a webhook of its workspace that hears every event and delivers to the receiver. */
  postWithWebhook(): Promise<{ post: Post; webhook: Webhook }>;
  /** Stops the bed, then the receiver. */
  stop(): Promise<void>;
};

/**
 * What the files that publish posts and deliver their events run on: a workflow test bed with a worker running the
 * real activities (startWorkflowTestBed), and a webhook receiver. Whatever fails on the way is stopped again.
 */
export async function startWebhookTestBed(): Promise<WebhookTestBed> {
  const receiver = await startWebhookReceiver({ secret: webhookSecret });
  const bed = await startWorkflowTestBed({ WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' }).catch(async (error: unknown) => {
    await receiver.close();
    throw error;
  });
  const stop = async () => {
    await bed.stop();
    await receiver.close();
  };
  await bed.startWorker().catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return {
    ...bed,
    receiver,
    async postWithWebhook() {
      const post = await createPostFixture(bed.orm);
      const webhook = await createWebhookFixture(bed.orm, bed.config, { workspaceId: post.workspaceId, url: receiver.url, secret: webhookSecret });
      return { post, webhook };
    },
    stop,
  };
}
