import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { startBlueskyServer, type BlueskyServer } from '../fakes/bluesky-server.ts';
import { eventually } from '../support/eventually.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import { withClient } from '../support/test-database.ts';
import { createTestWorkspace, type TestWorkspace } from '../support/workspaces.ts';

// One tenant's slow server stalls no one else: 20 publish targets of one workspace point at a Bluesky server (the
// customer's own PDS) that answers each session renewal only after `answerAfterMs`, and another workspace publishes
// meanwhile. The service runs with the tests' pool of 5 connections (a production worker has 10 for 100 concurrent
// activities), so 20 renewals that each kept a transaction open while the server took its time would hold every
// connection; the server's delay only has to outlast the pool's 5 s wait for a connection to show it, so it is
// shorter than the 25 s a slow server may take.

type Target = Schemas['PublishTarget'];

const slowTargets = 20;
const answerAfterMs = 8_000;

let slowServer: BlueskyServer;
let fastServer: BlueskyServer;
let app: TestApp;
let slowTenant: TestWorkspace;
let slowProjectId: string;
let slowConnectionIds: string[];
let otherTenant: TestWorkspace;
let otherProjectId: string;
let otherConnectionId: string;

async function connectBluesky(workspace: TestWorkspace, server: BlueskyServer): Promise<string> {
  const created = await workspace.client.post<{ id: string }>('/social-connections', {
    platform: 'bluesky',
    serviceUrl: server.url,
    handle: server.handle,
    appPassword: server.appPassword,
  });
  expect(created.status).toBe(201);
  return created.body.id;
}

async function newPost(workspace: TestWorkspace, projectId: string, title: string): Promise<string> {
  return (await workspace.client.post<{ id: string }>('/posts', { title, prompt: 'Boats at night', projectId })).body.id;
}

/** Publishes a new post of the other workspace and answers how long until its target was published, in ms. */
async function timeOtherPublication(): Promise<number> {
  const id = await newPost(otherTenant, otherProjectId, 'Harbour lights');
  const started = performance.now();
  const response = await otherTenant.client.post<Target[]>(`/posts/${id}/publish-social`, { connectionIds: [otherConnectionId] });
  expect(response.status).toBe(200);
  expect(response.body.map((target) => target.status)).toEqual(['Published']);
  return Math.round(performance.now() - started);
}

/** Database sessions of the service that sit inside a transaction waiting for their process. */
async function sessionsIdleInTransaction(): Promise<number> {
  return withClient(app.config.database.url, async (client) => {
    const { rows } = await client.query<{ sessions: number }>(
      "select count(*)::int as sessions from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'",
    );
    return rows[0]!.sessions;
  });
}

beforeAll(async () => {
  slowServer = await startBlueskyServer();
  fastServer = await startBlueskyServer();
  ({
    app,
    workspace: slowTenant,
    projectId: slowProjectId,
  } = await startAppWithWorkspace({
    env: { SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true', API_WAIT_SECONDS: '20' },
    project: 'Slow server',
  }));
  slowConnectionIds = [];
  for (let made = 0; made < slowTargets; made += 1) slowConnectionIds.push(await connectBluesky(slowTenant, slowServer));
  otherTenant = await createTestWorkspace(app, 'growth', 'other workspace');
  otherProjectId = (await otherTenant.client.post<{ id: string }>('/projects', { name: 'Fast server' })).body.id;
  otherConnectionId = await connectBluesky(otherTenant, fastServer);
});
afterAll(async () => {
  await app?.stop();
  await slowServer?.close();
  await fastServer?.close();
});

describe('publishing while a customer server is slow', () => {
  it('when 20 targets wait on a slow server for their sessions, then another workspace publishes as usual and no connection is held meanwhile', async () => {
    // The first publication also starts what every later one reuses (the worker's caches, the session).
    await timeOtherPublication();
    const usual = await timeOtherPublication();

    // The sessions opened when the accounts were checked are dropped, so every slow target renews its own.
    await withClient(app.config.database.url, (client) =>
      client.query('update social_connections set session_sealed = null where id = any($1::uuid[])', [slowConnectionIds]),
    );
    slowServer.script(
      'createSession',
      slowConnectionIds.map(() => ({ delayMs: answerAfterMs })),
    );
    const slowPostId = await newPost(slowTenant, slowProjectId, 'Slow harbour');
    const slowPublication = slowTenant.client.post(`/posts/${slowPostId}/publish-social`, { connectionIds: slowConnectionIds });
    const renewing = () => slowServer.requests.filter((request) => request.nsid === 'com.atproto.server.createSession').length;
    const checkedAccounts = renewing();
    // Every slow target is waiting on the server now (with a lock held across the call, most would wait on the pool).
    await eventually(() => Promise.resolve(expect(renewing() - checkedAccounts).toBe(slowTargets)));

    const idleBefore = await sessionsIdleInTransaction();
    const meanwhile = await timeOtherPublication();
    const idleAfter = await sessionsIdleInTransaction();
    const stillWaiting = slowServer.records.length === 0;
    console.log(
      `another workspace's publication: ${usual} ms alone, ${meanwhile} ms while ${slowTargets} targets waited on a server answering after ${answerAfterMs} ms`,
    );

    expect(stillWaiting).toBe(true);
    expect([idleBefore, idleAfter]).toEqual([0, 0]);
    expect([200, 202]).toContain((await slowPublication).status);
    const targets = async () => (await slowTenant.client.get<Target[]>(`/posts/${slowPostId}/publish-targets`)).body;
    await expect
      .poll(async () => (await targets()).map((target) => target.status), { timeout: 60_000, interval: 500 })
      .toEqual(slowConnectionIds.map(() => 'Published'));
    // Each slow target renewed its own session once: no renewal was lost or repeated.
    expect(renewing() - checkedAccounts).toBe(slowTargets);
  });
});
