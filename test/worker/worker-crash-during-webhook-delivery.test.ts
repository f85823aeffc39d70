import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookDelivery } from '../../src/adapters/database/entities/webhook-delivery.ts';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import { recordPostEvent } from '../../src/domain/events/post-event.ts';
import type { deliverEvent } from '../../workflows/deliver-event.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { eventually } from '../support/eventually.ts';
import { createPostFixture } from '../support/post-fixtures.ts';
import { useCrashTestBed } from '../support/crash-test-bed.ts';
import { createWebhookFixture } from '../support/webhook-fixtures.ts';

// An event's first round runs as a local activity and hands over, after a second, the requests its receivers have
// not answered yet: they stay under way, and the activity after the round waits for their answers in the delivery
// log. Here the worker that made such a request is killed (SIGKILL) while the receiver holds it, so its answer can
// never reach the log. Another worker runs the rest: it waits for the answer until the request's timeout has
// passed, then sends the request again, under the same delivery id, and logs one attempt.

const secret = 'a-webhook-signing-secret';
// Short, so the wait for a lost request's answer (its timeout and ten seconds) stays short.
const webhookTimeoutSeconds = 2;

let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver({ secret });
});
afterAll(() => receiver?.close());
const bed = useCrashTestBed(() => ({ WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_TIMEOUT_SECONDS: String(webhookTimeoutSeconds) }));

describe('a worker killed while a handed-over webhook request is under way', () => {
  it('when another worker takes over, then the request is sent again under the same delivery id and logged as one attempt', { timeout: 120_000 }, async () => {
    const { orm, config, client } = bed;
    const post = await createPostFixture(orm);
    const webhook = await createWebhookFixture(orm, config, { workspaceId: post.workspaceId, url: receiver.url, secret });
    const event = await orm.em.fork().transactional((em) => recordPostEvent(em, post, { type: 'post.published', sourceId: `crash-${post.id}` }));

    const first = await bed.startWorker();
    const release = receiver.hold();
    const handle = await client.workflow.start<typeof deliverEvent>('deliverEvent', {
      workflowId: workflowIds.eventDelivery(event.id),
      taskQueue: config.temporal.taskQueue,
      args: [{ eventId: event.id, retryWaitsSeconds: config.webhooks.retryWaitsSeconds, requestTimeoutSeconds: webhookTimeoutSeconds }],
    });
    try {
      // The round handed the silent request over: the activity that waits for its answer is scheduled.
      await eventually(async () => expect((await handle.fetchHistory()).events!.some((entry) => entry.activityTaskScheduledEventAttributes)).toBe(true));
      expect(receiver.deliveries).toHaveLength(1);
    } finally {
      first.process.kill('SIGKILL');
      await once(first.process, 'exit');
    }
    // The held answer goes to a socket whose other end died with the worker.
    release();

    const second = await bed.startWorker();
    try {
      const result = await handle.result();
      expect(result.webhooks.map(({ webhookId, outcome, attempts }) => ({ webhookId, outcome, attempts }))).toEqual([
        { webhookId: webhook.id, outcome: 'delivered', attempts: 1 },
      ]);
    } finally {
      second.process.kill('SIGTERM');
      await once(second.process, 'exit');
    }

    // At least once: the receiver saw the request twice, with one delivery id, as receivers are told to expect.
    expect(receiver.deliveries).toHaveLength(2);
    expect(new Set(receiver.deliveries.map((delivery) => delivery.deliveryId)).size).toBe(1);
    expect(receiver.deliveries.every((delivery) => delivery.signatureValid)).toBe(true);
    const log = await orm.em.fork().find(WebhookDelivery, { webhookId: webhook.id });
    expect(log.map(({ attempt, succeeded }) => ({ attempt, succeeded }))).toEqual([{ attempt: 1, succeeded: true }]);
  });
});
