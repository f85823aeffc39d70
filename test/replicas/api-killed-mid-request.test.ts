import type { ChildProcess } from 'node:child_process';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { openDatabase, type Database } from '../../src/adapters/database/orm.ts';
import { createWorkspace } from '../../src/domain/workspaces/create-workspace.ts';
import { startMastodonServer, type MastodonServer } from '../fakes/mastodon-server.ts';
import { startStabilityServer, type StabilityServer } from '../fakes/stability-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import { startApiProcess } from '../support/api-process.ts';
import { holdingStoredAnswers } from '../support/held-answers.ts';
import { infrastructure } from '../support/infrastructure.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';
import { stopProcesses } from '../support/stop-processes.ts';
import { eventually } from '../support/eventually.ts';
import { apiClient, type ApiClient, type ApiResponse } from '../support/http.ts';
import { testConfigEnv } from '../support/test-config.ts';
import { createTestDatabase } from '../support/test-database.ts';
import { startWorkerProcess } from '../support/worker-process.ts';

// An api process killed (SIGKILL) after a request's effect was under way and before it answered, and the client's
// retry with the same Idempotency-Key sent to another api, as a client behind a load balancer does. The retry must
// find what the first execution did and answer with it: one status on the platform, one post.published per webhook.

type Target = Schemas['PublishTarget'];

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let orm: Database;
let mastodon: MastodonServer;
let stability: StabilityServer;
let receiver: WebhookReceiver;
let env: Record<string, string>;
let apiKey: string;
let survivor: ApiClient;
const processes: ChildProcess[] = [];
let projectId: string;
let connectionId: string;
let temporal: Connection;
let worker: ChildProcess;

beforeAll(async () => {
  database = await createTestDatabase();
  orm = await openDatabase(database.url);
  mastodon = await startMastodonServer();
  stability = await startStabilityServer();
  receiver = await startWebhookReceiver();
  env = {
    ...testConfigEnv(database.url),
    STABILITY_API_KEY: stability.apiKey,
    STABILITY_API_URL: stability.url,
    // The fakes on loopback, over HTTPS with the run's dev CA.
    SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
    NODE_EXTRA_CA_CERTS: inject('devCaCertPath'),
    // A dead request's key is taken over after this long (10 s by default): the retries below wait it out.
    IDEMPOTENCY_LOCK_SECONDS: '3',
  };
  const [second, started] = await Promise.all([startApiProcess(env), startWorkerProcess(env)]);
  worker = started.process;
  processes.push(second.process, worker);
  temporal = await Connection.connect({ address: infrastructure.temporalAddress });
  ({ apiKey } = await createWorkspace(orm, { name: 'Killed mid-request', plan: 'growth' }));
  survivor = apiClient(second.url, apiKey);
  projectId = (await survivor.post<{ id: string }>('/projects', { name: 'Harbour' })).body.id;
  const connection = await survivor.post<{ id: string }>('/social-connections', {
    platform: 'mastodon',
    instanceUrl: mastodon.url,
    accessToken: mastodon.token,
  });
  connectionId = connection.body.id;
  expect((await survivor.post('/webhooks', { url: receiver.url, events: 'post.published' })).status).toBe(201);
}, 240_000);

afterAll(async () => {
  await stopProcesses(processes);
  await temporal?.close();
  await mastodon?.close();
  await stability?.close();
  await receiver?.close();
  await orm?.close();
  await database?.drop();
});

/** An api process of its own for the first send of a request, to be killed before it answers. */
async function startDoomedApi(): Promise<{ process: ChildProcess; client: ApiClient }> {
  const api = await startApiProcess(env);
  processes.push(api.process);
  return { process: api.process, client: apiClient(api.url, apiKey) };
}

/** Sends the request again with its key until the key is free of the dead request (409 and Retry-After until then). */
async function retryUntilAnswered<T>(send: () => Promise<ApiResponse<T>>): Promise<ApiResponse<T>> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const response = await send();
    if ((response.status !== 409 && response.status !== 503) || Date.now() > deadline) return response;
    const retryAfter = Number(response.headers.get('retry-after'));
    // The Retry-After of a key held by a dead request is when it can be taken over: at most the lock's 3 s. A 503
    // (Temporal not reachable yet: the api's connection comes back on its own backoff once the line is restored)
    // says when to try again too, as a client would.
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    if (response.status === 409) expect(retryAfter).toBeLessThanOrEqual(3);
    await new Promise((resolveWait) => setTimeout(resolveWait, Math.min(retryAfter, 5) * 1000));
  }
}

describe('an api killed mid-request, and the retry sent to another api', () => {
  it('when it dies after the publication started and before it answered, then the retry answers the same targets and the post goes out once', async () => {
    const doomed = await startDoomedApi();
    const post = (await survivor.post<{ id: string }>('/posts', { title: 'Harbour lights', prompt: 'Boats at night', projectId })).body;
    expect((await survivor.post(`/posts/${post.id}/generate`)).status).toBe(200);
    const key = `publish-${post.id}`;
    const body = { connectionIds: [connectionId] };
    // Mastodon takes its time over the status, so the first api is still waiting for the outcome when it is killed.
    mastodon.script('statuses', [{ delayMs: 2_000 }]);
    const statusesBefore = mastodon.requests.filter((request) => request.path.endsWith('/statuses')).length;
    const postedBefore = mastodon.statuses.length;

    const first = doomed.client.post(`/posts/${post.id}/publish-social`, body, { headers: { 'idempotency-key': key } }).catch((error: unknown) => error);
    await eventually(() => Promise.resolve(expect(mastodon.requests.filter((request) => request.path.endsWith('/statuses')).length).toBe(statusesBefore + 1)));
    doomed.process.kill('SIGKILL');
    expect(await first).toBeInstanceOf(Error);

    const retry = await retryUntilAnswered(() => survivor.post<Target[]>(`/posts/${post.id}/publish-social`, body, { headers: { 'idempotency-key': key } }));
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-recovered')).toBe('true');
    const recorded = await orm.em.fork().execute<Array<{ id: string }>>('select id from publish_targets where post_id = ?', [post.id]);
    expect(retry.body.map((target) => target.id)).toEqual(recorded.map((target) => target.id));
    expect(retry.body.map((target) => target.status)).toEqual(['Published']);

    expect(mastodon.statuses.length - postedBefore).toBe(1);
    await eventually(() => Promise.resolve(expect(receiver.deliveries.filter((delivery) => JSON.stringify(delivery.body).includes(post.id))).toHaveLength(1)));
    // And a later retry replays the stored answer.
    const again = await survivor.post<Target[]>(`/posts/${post.id}/publish-social`, body, { headers: { 'idempotency-key': key } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(retry.body);
  });

  it('when it dies while a generation runs, then the retry answers that generation and the image is generated once', async () => {
    const doomed = await startDoomedApi();
    const post = (await survivor.post<{ id: string }>('/posts', { title: 'Generated once', prompt: 'Boats at night', projectId })).body;
    const key = `generate-${post.id}`;
    const hold = stability.hold();
    const imagesBefore = stability.requests.length;

    const first = doomed.client.post(`/posts/${post.id}/generate`, {}, { headers: { 'idempotency-key': key } }).catch((error: unknown) => error);
    await hold.received;
    doomed.process.kill('SIGKILL');
    expect(await first).toBeInstanceOf(Error);
    hold.release();

    const retry = await retryUntilAnswered(() => survivor.post(`/posts/${post.id}/generate`, {}, { headers: { 'idempotency-key': key } }));
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-recovered')).toBe('true');
    expect(stability.requests.length - imagesBefore).toBe(1);
    const [versions] = await orm.em.fork().execute<Array<{ n: string }>>('select count(*) as n from post_versions where post_id = ?', [post.id]);
    expect(Number(versions!.n)).toBe(1);
  });
});

/** How many updates (plans, cancels) the post's publication workflow accepted: each publish or schedule run sends one. */
async function publicationUpdates(postId: string): Promise<number> {
  const history = await new Client({ connection: temporal }).workflow.getHandle(workflowIds.postPublication(postId)).fetchHistory();
  return (history.events ?? []).filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes).length;
}

const count = async (sql: string, ...params: unknown[]) =>
  Number((await orm.em.fork().execute<Array<{ n: string }>>(`select count(*) as n from ${sql}`, params))[0]!.n);

/** A keyed request, and what it does exactly once however often it runs (a snapshot a second run would move). */
type Request = { path: string; body: unknown; effect(): Promise<unknown> };

const requests: Array<[string, () => Promise<Request>]> = [
  [
    'a publish now',
    async () => {
      const post = (await survivor.post<{ id: string }>('/posts', { title: 'Published once', prompt: 'Boats at night', projectId })).body;
      return {
        path: `/posts/${post.id}/publish`,
        body: {},
        effect: async () => ({
          updates: await publicationUpdates(post.id),
          events: await count(`events where post_id = ? and type = 'post.published'`, post.id),
        }),
      };
    },
  ],
  [
    'a schedule',
    async () => {
      const post = (await survivor.post<{ id: string }>('/posts', { title: 'Scheduled once', prompt: 'Boats at night', projectId })).body;
      return {
        path: `/posts/${post.id}/schedule`,
        body: { scheduledAt: new Date(Date.now() + 24 * 3_600_000).toISOString() },
        effect: async () => ({ updates: await publicationUpdates(post.id), plans: await count('publication_requests where post_id = ?', post.id) }),
      };
    },
  ],
  [
    'a create post',
    () => {
      const title = `Created once ${Date.now()}`;
      return Promise.resolve({
        path: '/posts',
        body: { title, prompt: 'Boats at night', projectId },
        effect: () => count('posts where title = ?', title),
      });
    },
  ],
];

describe('an api killed after the effect committed and before it stored its answer, and the retry sent to another api', () => {
  it.each(requests)('when it is %s, then the retry answers what the first run did and nothing happens twice', async (_what, prepare) => {
    const request = await prepare();
    const doomed = await startDoomedApi();
    const key = `killed-${Date.now()}`;
    const headers = { 'idempotency-key': key };

    const once = await holdingStoredAnswers(database.url, async (hold) => {
      const first = doomed.client.post(request.path, request.body, { headers }).catch((error: unknown) => error);
      await hold.waiting();
      const effect = await request.effect();
      doomed.process.kill('SIGKILL');
      expect(await first).toBeInstanceOf(Error);
      await hold.endHeldSessions();
      return effect;
    });

    const retry = await retryUntilAnswered(() => survivor.post(request.path, request.body, { headers }));
    expect(retry.status).toBeLessThan(300);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.headers.get('idempotent-recovered')).toBe('true');
    expect(await request.effect()).toEqual(once);
  });
});

describe('Temporal unreachable after it accepted a publication and before the api heard back', () => {
  // The api waits out its Temporal deadline (10 s) before it answers, and then reconnects: a shorter one may end
  // before the client's reconnect backoff has brought the line back for the retry.
  it('when the api answers 503, then the retry with the same key joins that publication and the post is published once', { timeout: 120_000 }, async () => {
    const proxy = await startTcpProxy(infrastructure.temporalAddress);
    try {
      const cutOff = await startApiProcess({ ...env, TEMPORAL_ADDRESS: proxy.address });
      processes.push(cutOff.process);
      const client = apiClient(cutOff.url, apiKey);
      const post = (await survivor.post<{ id: string }>('/posts', { title: 'Accepted unheard', prompt: 'Boats at night', projectId })).body;
      const publish = () => client.post(`/posts/${post.id}/publish`, {}, { headers: { 'idempotency-key': `unheard-${post.id}` } });
      const publication = new Client({ connection: temporal }).workflow.getHandle(workflowIds.postPublication(post.id));

      // The worker paused, Temporal holds the accepted publication and the api waits for its plan: then the line goes.
      worker.kill('SIGSTOP');
      let first;
      try {
        const sent = publish();
        await eventually(() => publication.describe());
        proxy.cut();
        first = await sent;
      } finally {
        worker.kill('SIGCONT');
      }
      expect(first.status).toBe(503);
      expect((first.body as { detail: string }).detail).not.toContain('did not accept');

      proxy.restore();
      const retry = await retryUntilAnswered(publish);
      expect(retry.status).toBe(200);
      expect(retry.body).toMatchObject({ id: post.id, status: 'published' });
      expect(await publicationUpdates(post.id)).toBe(1);
      expect(await count(`events where post_id = ? and type = 'post.published'`, post.id)).toBe(1);
    } finally {
      await proxy.close();
    }
  });
});
