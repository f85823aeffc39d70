import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../../src/api/schemas.ts';
import { SocialConnection } from '../../../src/adapters/database/entities/social-connection.ts';
import { WorkspaceEvent } from '../../../src/adapters/database/entities/workspace-event.ts';
import { workflowIds } from '../../../src/adapters/temporal/workflow-ids.ts';
import { markNeedsReauth } from '../../../src/domain/social-connections/refresh-connection.ts';
import { startTemporalDevServer, type TemporalDevServer } from '../../../src/local/embedded/temporal-dev-server.ts';
import type { deliverEvent } from '../../../workflows/deliver-event.ts';
import type { sweepEvents } from '../../../workflows/sweep-events.ts';
import { startMastodonServer, type MastodonServer } from '../../fakes/mastodon-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../fakes/webhook-receiver.ts';
import { startAppWithWorkspace } from '../../support/app-with-workspace.ts';
import { eventually } from '../../support/eventually.ts';
import type { TestApp } from '../../support/test-app.ts';
import type { TestWorkspace } from '../../support/workspaces.ts';

// `connection.expired` is recorded by the api (a verify the platform refuses) in the transaction that marks the
// connection, and handed to its delivery after the commit. Whatever happens between the two (Temporal down, the
// process gone), the customer's webhook gets the event once: the event sweep hands over what the api could not.
// Temporal here is the file's own, so that it can be stopped; the sweep leaves events no grace, and the test runs
// it as its Temporal Schedule would.

type Connection = Schemas['SocialConnection'];
type ExpiredBody = { event: string; data: { id: string; platform: string; status: string; reason: string } };

let temporal: TemporalDevServer;
let mastodon: MastodonServer;
let receiver: WebhookReceiver;
let app: TestApp;
let workspace: TestWorkspace;

beforeAll(async () => {
  temporal = await startTemporalDevServer({ headless: true });
  mastodon = await startMastodonServer();
  receiver = await startWebhookReceiver();
  ({ app, workspace } = await startAppWithWorkspace({
    env: {
      TEMPORAL_ADDRESS: temporal.address,
      // The hand-over to a stopped Temporal waits out this deadline (10 s by default).
      TEMPORAL_CALL_TIMEOUT_SECONDS: '5',
      SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
      EVENT_SWEEP_AFTER_SECONDS: '0',
    },
  }));
  expect((await workspace.client.post('/webhooks', { url: receiver.url, events: 'connection.expired' })).status).toBe(201);
});
afterAll(async () => {
  await app?.stop();
  await temporal?.stop();
  await receiver?.close();
  await mastodon?.close();
});

async function connectMastodon(): Promise<string> {
  const created = await workspace.client.post<Connection>('/social-connections', {
    platform: 'mastodon',
    instanceUrl: mastodon.url,
    accessToken: mastodon.token,
  });
  expect(created.status).toBe(201);
  return created.body.id;
}

/** The instance refuses the token at the next check, as it does once the person revoked it. */
function refuseTokenOnce(): void {
  mastodon.script('verify_credentials', [{ status: 401 }]);
}

function expiredDeliveries(connectionId: string): ExpiredBody[] {
  return receiver.deliveries
    .map((delivery) => delivery.body as ExpiredBody)
    .filter((body) => body.event === 'connection.expired' && body.data.id === connectionId);
}

async function expiredEvent(connectionId: string): Promise<WorkspaceEvent> {
  return app.api.services.orm.em.fork().findOneOrFail(WorkspaceEvent, { type: 'connection.expired', details: { connectionId } });
}

/** One run of the event sweep, as its Temporal Schedule starts it: how many events it handed over. */
async function sweep(): Promise<number> {
  const result = await app.api.services.temporal.workflow.execute<typeof sweepEvents>('sweepEvents', {
    workflowId: `event-sweep-test-${randomUUID()}`,
    taskQueue: app.config.temporal.taskQueue,
    workflowExecutionTimeout: '30 seconds',
  });
  return result.handedOver;
}

/**
 * The event reached the webhook exactly once: its one delivery came, its delivery workflow ended having sent it
 * once, and a sweep run after that finds nothing left to hand over, so no second delivery can follow.
 */
async function expectDeliveredOnce(connectionId: string): Promise<void> {
  const [delivered] = await eventually(() => {
    const deliveries = expiredDeliveries(connectionId);
    expect(deliveries).toHaveLength(1);
    return Promise.resolve(deliveries);
  });
  expect(delivered!.data).toMatchObject({
    id: connectionId,
    platform: 'mastodon',
    status: 'needs_reauth',
    reason: expect.stringContaining('access token is invalid'),
  });
  const event = await expiredEvent(connectionId);
  const delivery = app.api.services.temporal.workflow.getHandle<typeof deliverEvent>(workflowIds.eventDelivery(event.id));
  expect((await delivery.result()).webhooks.map(({ outcome, attempts }) => ({ outcome, attempts }))).toEqual([{ outcome: 'delivered', attempts: 1 }]);
  expect(await sweep()).toBe(0);
  expect(expiredDeliveries(connectionId)).toHaveLength(1);
}

describe('connection.expired from a verify', () => {
  it('when Temporal is up, then the verify hands the event over itself and the webhook receives it once', async () => {
    const connectionId = await connectMastodon();
    refuseTokenOnce();
    const verified = await workspace.client.post<Connection>(`/social-connections/${connectionId}/verify`);
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ status: 'needs_reauth', lastError: expect.stringContaining('access token is invalid') });
    expect((await expiredEvent(connectionId)).handedOverAt).not.toBeNull();
    await expectDeliveredOnce(connectionId);
  });

  it('when the process dies between the commit and the hand-over, then the event sweep hands the event over and the webhook receives it once', async () => {
    const connectionId = await connectMastodon();
    // What the verify's transaction commits, and all a process that dies right after it leaves behind.
    await app.api.services.orm.em.fork().transactional(async (em) => {
      await markNeedsReauth(em, await em.findOneOrFail(SocialConnection, connectionId), 'The access token is invalid');
    });
    expect((await expiredEvent(connectionId)).handedOverAt).toBeNull();
    expect(await sweep()).toBe(1);
    await expectDeliveredOnce(connectionId);
  });

  it(
    'when Temporal is unreachable as a verify finds the token refused, then the verify answers the connection needs_reauth, and once Temporal is back the webhook receives connection.expired once',
    { timeout: 90_000 },
    async () => {
      const connectionId = await connectMastodon();
      refuseTokenOnce();
      await temporal.stop();

      // The hand-over waits out one Temporal deadline; the change is committed, so the verify answers it.
      const verified = await workspace.client.post<Connection>(`/social-connections/${connectionId}/verify`);
      expect(verified.status).toBe(200);
      expect(verified.body).toMatchObject({ status: 'needs_reauth', lastError: expect.stringContaining('access token is invalid') });
      expect((await expiredEvent(connectionId)).handedOverAt).toBeNull();
      expect(expiredDeliveries(connectionId)).toEqual([]);

      temporal = await startTemporalDevServer({ headless: true, port: Number(temporal.address.split(':')[1]) });
      await eventually(() => app.api.services.temporal.workflowService.getSystemInfo({}), 30_000);
      expect(await sweep()).toBe(1);
      await expectDeliveredOnce(connectionId);
    },
  );
});
