import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SocialConnection } from '../../src/adapters/database/entities/social-connection.ts';
import { WorkspaceEvent } from '../../src/adapters/database/entities/workspace-event.ts';
import { SocialRejectedError } from '../../src/adapters/social/social-connector.ts';
import { createXOAuthPlatform } from '../../src/adapters/social/x/x-oauth-platform.ts';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import { keepConnectionAlive } from '../../workflows/keep-connection-alive.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { startXServer, type XServer } from '../fakes/x-server.ts';
import { eventually } from '../support/eventually.ts';
import { failureOf } from '../support/failure-of.ts';
import { createPostFixture } from '../support/post-fixtures.ts';
import { createWebhookFixture } from '../support/webhook-fixtures.ts';
import { startWorkflowTestBed, type WorkflowTestBed } from '../support/workflow-test-bed.ts';
import { createXConnectionFixture, storedXCredentials, xEnv, xTokens } from '../support/x-connections.ts';

// The keep-alive workflow on the time-skipping server, with the real activities against the fake X: its sleeps until
// shortly before expiry pass at once, so a refresh due in two hours is seen in a second.

let x: XServer;
let receiver: WebhookReceiver;
let bed: WorkflowTestBed;

beforeAll(async () => {
  x = await startXServer();
  receiver = await startWebhookReceiver();
  bed = await startWorkflowTestBed({ ...xEnv(x), WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' });
  await bed.startWorker();
});
beforeEach(() => {
  x.requests.length = 0;
  x.accessTokenLifetimeSeconds = 7200;
  receiver.reset();
});
afterAll(async () => {
  await bed?.stop();
  await receiver?.close();
  await x?.close();
});

/** A workspace with a webhook that hears connection.expired, and an X connection of it with `tokens`. */
async function connectionExpiringIn(ms: number, tokens?: Awaited<ReturnType<typeof xTokens>>) {
  const { workspaceId } = await createPostFixture(bed.orm);
  await createWebhookFixture(bed.orm, bed.config, { workspaceId, url: receiver.url, events: 'connection.expired' });
  const granted = tokens ?? (await xTokens(x));
  return createXConnectionFixture(bed.orm, bed.config, { workspaceId, x, tokens: granted, expiresAt: Date.now() + ms });
}

function start(connectionId: string) {
  return bed.client.workflow.start(keepConnectionAlive, {
    workflowId: workflowIds.socialConnection(connectionId),
    taskQueue: bed.taskQueue,
    args: [{ connectionId }],
  });
}

async function connectionRow(id: string) {
  return bed.orm.em.fork().findOneOrFail(SocialConnection, id);
}

const tokenRequests = () => x.requests.filter((request) => request.path === '/2/oauth2/token');

describe('keepConnectionAlive', () => {
  it('when the access token expires in a minute, then it is refreshed in time, the rotated refresh token stored with it, and the old one refused', async () => {
    const connection = await connectionExpiringIn(60_000);
    const before = await storedXCredentials(bed.orm, bed.config, connection.id);
    const handle = await start(connection.id);

    const after = await eventually(async () => {
      const stored = await storedXCredentials(bed.orm, bed.config, connection.id);
      expect(stored.refreshToken).not.toBe(before.refreshToken);
      return stored;
    });
    expect(after.refreshToken).toBe(x.currentRefreshToken());
    expect(Date.parse(after.expiresAt)).toBeGreaterThan(Date.now() + 7_000_000);
    expect((await connectionRow(connection.id)).expiresAt?.toISOString()).toBe(after.expiresAt);

    const oauth = createXOAuthPlatform({ allowPrivateNetworks: true, apiUrl: x.url, authorizeUrl: x.authorizeUrl });
    const tokens = { accessToken: before.accessToken, refreshToken: before.refreshToken, expiresAt: 0 };
    expect((await failureOf(oauth.refresh({ client: x.client, tokens }), SocialRejectedError)).reason).toContain('invalid_grant');

    // Two hours later (skipped), the workflow refreshes again with the token it stored.
    const refreshes = tokenRequests().length;
    await bed.env.sleep('2 hours');
    await expect.poll(() => tokenRequests().length).toBeGreaterThan(refreshes);
    expect((await storedXCredentials(bed.orm, bed.config, connection.id)).refreshToken).toBe(x.currentRefreshToken());
    expect((await connectionRow(connection.id)).status).toBe('active');
    await handle.terminate('test over');
  });

  it('when X refuses the refresh, then the connection needs the person again, says why, and connection.expired is delivered', async () => {
    const granted = await xTokens(x);
    // Another grant retires this one's refresh token.
    await xTokens(x);
    const connection = await connectionExpiringIn(60_000, granted);
    const handle = await start(connection.id);

    expect(await handle.result()).toEqual({ ended: 'needs_reauth' });
    const row = await connectionRow(connection.id);
    expect(row.status).toBe('needs_reauth');
    expect(row.lastError).toContain('invalid_grant');
    await expect.poll(() => receiver.deliveries.length).toBe(1);
    expect(receiver.deliveries[0]?.body).toMatchObject({
      event: 'connection.expired',
      workspaceId: connection.workspaceId,
      data: { id: connection.id, platform: 'x', accountName: '@alice_x', status: 'needs_reauth', reason: expect.stringContaining('invalid_grant') },
    });
    expect(await bed.orm.em.fork().count(WorkspaceEvent, { workspaceId: connection.workspaceId, type: 'connection.expired' })).toBe(1);
  });

  it('when the token endpoint answers 503 and 429, then the refresh is tried again and the connection stays active', async () => {
    const connection = await connectionExpiringIn(60_000);
    x.script('token', [{ status: 503 }, { status: 429, rateLimitReset: String(Math.ceil(Date.now() / 1000) + 60) }, { status: 503 }]);
    const handle = await start(connection.id);

    const before = await storedXCredentials(bed.orm, bed.config, connection.id);
    // The retries' backoffs (10 s, 20 s, then the minute X asked for) pass on the skipped clock.
    await bed.env.sleep('5 minutes');
    await eventually(async () => {
      const stored = await storedXCredentials(bed.orm, bed.config, connection.id);
      expect(stored.refreshToken).not.toBe(before.refreshToken);
      expect(stored.refreshToken).toBe(x.currentRefreshToken());
    });
    // The exchange, three refusals, then refreshes (more than one: the skipped clock runs ahead of the fake's).
    expect(tokenRequests().length).toBeGreaterThanOrEqual(5);
    const row = await connectionRow(connection.id);
    expect(row.status).toBe('active');
    expect(row.lastError).toBeNull();
    await handle.terminate('test over');
  });

  it('when the connection is deleted, then the workflow ends at its next wake', async () => {
    const connection = await connectionExpiringIn(7_200_000);
    const handle = await start(connection.id);
    await eventually(async () => expect((await handle.describe()).status.name).toBe('RUNNING'));
    await bed.orm.em.fork().nativeDelete(SocialConnection, { id: connection.id });
    expect(await handle.result()).toEqual({ ended: 'deleted' });
  });
});
