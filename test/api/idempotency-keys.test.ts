import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { specPath } from '../../src/api/app.ts';
import { keyIdOf } from '../../src/config/encryption-keys.ts';
import type { Schemas } from '../../src/api/schemas.ts';
import { requestBodyHash, requestFingerprint } from '../../src/domain/idempotency/idempotent-request.ts';
import { recordIntent } from '../../src/domain/idempotency/request-effects.ts';
import { deleteExpiredIdempotencyKeys } from '../../src/domain/idempotency/sweep-expired-idempotency-keys.ts';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import { startMastodonServer, type MastodonServer } from '../fakes/mastodon-server.ts';
import { startStabilityServer, type StabilityServer } from '../fakes/stability-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { startXServer, type XServer } from '../fakes/x-server.ts';
import { createXConnectionFixture, xEnv, xTokens } from '../support/x-connections.ts';
import { eventually } from '../support/eventually.ts';
import type { ApiResponse } from '../support/http.ts';
import { makeImage } from '../support/images.ts';
import { sealV1 } from '../support/sealed-rows.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import { createTestWorkspace, type TestWorkspace } from '../support/workspaces.ts';

// Idempotency-Key on every POST: a retry with the same key and request gets the first answer again and runs nothing;
// another request under the key answers 422, a retry while the first runs 409. Images come from a local server
// speaking Stability AI's API, so a generation can be held while a retry arrives.

type Problem = Schemas['Problem'];

let stability: StabilityServer;
let mastodon: MastodonServer;
let receiver: WebhookReceiver;
let x: XServer;
let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;
let keyCounter = 0;

beforeAll(async () => {
  stability = await startStabilityServer();
  mastodon = await startMastodonServer();
  receiver = await startWebhookReceiver();
  x = await startXServer();
  ({ app, workspace, projectId } = await startAppWithWorkspace({
    env: {
      ...xEnv(x),
      STABILITY_API_KEY: stability.apiKey,
      STABILITY_API_URL: stability.url,
      // Room for a loaded machine; a held provider request outlasts it.
      API_WAIT_SECONDS: '8',
      SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
    },
    project: 'Idempotency',
  }));
});
afterAll(async () => {
  await app?.stop();
  await receiver?.close();
  await x?.close();
  await mastodon?.close();
  await stability?.close();
});

const newKey = () => `test-key-${Date.now()}-${(keyCounter += 1)}`;

function send(path: string, body: unknown, key: string, client = workspace.client): Promise<ApiResponse> {
  return client.post(path, typeof body === 'function' ? (body as () => unknown)() : body, { headers: { 'idempotency-key': key } });
}

async function count(sql: string, ...params: unknown[]): Promise<number> {
  const [row] = await app.api.services.orm.em.fork().execute<Array<{ n: string }>>(`select count(*) as n from ${sql}`, params, 'all');
  return Number(row!.n);
}

async function column(sql: string, ...params: unknown[]): Promise<unknown> {
  const [row] = await app.api.services.orm.em.fork().execute<Array<{ value: unknown }>>(`select ${sql}`, params, 'all');
  return row?.value;
}

async function newPost(options: { generated?: boolean } = {}): Promise<string> {
  const id = (await workspace.client.post<{ id: string }>('/posts', { title: 'Harbour', prompt: 'Boats at night', projectId })).body.id;
  if (options.generated) expect((await workspace.client.post(`/posts/${id}/generate`)).status).toBe(200);
  return id;
}

/** A Mastodon connection of the workspace, on the fake. */
async function newMastodonConnection(): Promise<string> {
  const response = await workspace.client.post<{ id: string }>('/social-connections', {
    platform: 'mastodon',
    instanceUrl: mastodon.url,
    accessToken: mastodon.token,
  });
  return response.body.id;
}

/** How many updates (plan, cancel) the post's publication workflow has accepted: each publish or schedule sends one. */
async function publicationUpdates(postId: string): Promise<number> {
  const history = await app.api.services.temporal.workflow.getHandle(workflowIds.postPublication(postId)).fetchHistory();
  return (history.events ?? []).filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes).length;
}

async function workflowExists(workflowId: string): Promise<boolean> {
  try {
    await app.api.services.temporal.workflow.getHandle(workflowId).describe();
    return true;
  } catch {
    return false;
  }
}

/** A webhook with one settled delivery in its log, and the attempt number the next redelivery of it will get. */
async function settledDelivery(): Promise<{ hookId: string; deliveryId: string; nextAttempt: number }> {
  const hook = (await workspace.client.post<{ id: string }>('/webhooks', { url: receiver.url, events: 'post.published' })).body;
  const postId = await newPost();
  expect((await workspace.client.post(`/posts/${postId}/publish`)).status).toBe(200);
  const [delivery] = await eventually(async () => {
    const log = (await workspace.client.get<Array<Schemas['WebhookDelivery']>>(`/webhooks/${hook.id}/deliveries`)).body;
    expect(log).toHaveLength(1);
    return log;
  });
  // One redelivery without a key, once the delivery has left its automatic schedule; the keyed one comes after it.
  const first = await eventually(async () => {
    const response = await workspace.client.post<Schemas['RedeliverWebhookDeliveryResponse']>(
      `/webhooks/${hook.id}/deliveries/${delivery!.deliveryId}/redeliver`,
    );
    expect(response.status).toBe(202);
    return response.body;
  });
  await app.api.services.temporal.workflow.getHandle(workflowIds.webhookRedelivery(first.deliveryId, first.attempt)).result();
  return { hookId: hook.id, deliveryId: first.deliveryId, nextAttempt: first.attempt + 1 };
}

/**
 * How to send one POST operation, and what it changes (a snapshot that one run moves and a second run would move
 * again); `answer` is what of its answer a run after a lost answer repeats (default: all of it, links unsigned).
 */
type Scenario = { path: string; body?: unknown; effect(): unknown; answer?: (body: unknown) => unknown };

const scenarios: Record<string, () => Scenario | Promise<Scenario>> = {
  'POST /posts': () => ({
    path: '/posts',
    body: { title: 'Once', prompt: 'One lighthouse', projectId },
    effect: () => count('posts where workspace_id = ?', workspace.id),
  }),
  'POST /posts/{id}/generate': async () => {
    const id = await newPost();
    return {
      path: `/posts/${id}/generate`,
      body: { format: '16:9', seed: 7 },
      effect: async () => ({
        versions: await count('post_versions where post_id = ?', id),
        usage: await count(`usage_activity where post_id = ? and type = 'PostGeneration'`, id),
        providerCalls: stability.requests.length,
      }),
    };
  },
  'POST /posts/{id}/render': async () => {
    const id = await newPost({ generated: true });
    return {
      path: `/posts/${id}/render`,
      effect: async () => ({
        versions: await count('post_versions where post_id = ?', id),
        usage: await count(`usage_activity where post_id = ? and type = 'PostRender'`, id),
      }),
    };
  },
  'POST /posts/{id}/publish': async () => {
    const id = await newPost();
    return {
      path: `/posts/${id}/publish`,
      effect: async () => ({
        updates: (await workflowExists(workflowIds.postPublication(id))) ? await publicationUpdates(id) : 0,
        usage: await count(`usage_activity where post_id = ? and type = 'PostPublish'`, id),
      }),
    };
  },
  'POST /posts/{id}/schedule': async () => {
    const id = await newPost();
    return {
      path: `/posts/${id}/schedule`,
      body: { scheduledAt: new Date(Date.now() + 24 * 3600_000).toISOString() },
      effect: async () => ((await workflowExists(workflowIds.postPublication(id))) ? publicationUpdates(id) : 0),
    };
  },
  'POST /posts/{id}/publish-social': async () => {
    const id = await newPost({ generated: true });
    const connectionId = await newMastodonConnection();
    return {
      path: `/posts/${id}/publish-social`,
      body: { connectionIds: [connectionId] },
      effect: async () => ({
        statuses: mastodon.statuses.length,
        usage: await count(`usage_activity where post_id = ? and type = 'SocialPublish'`, id),
      }),
    };
  },
  'POST /posts/{id}/versions/{versionId}/restore': async () => {
    const id = await newPost({ generated: true });
    const [version] = (await workspace.client.get<Array<{ id: string }>>(`/posts/${id}/versions`)).body;
    return { path: `/posts/${id}/versions/${version!.id}/restore`, effect: () => count('post_versions where post_id = ?', id) };
  },
  'POST /projects': () => ({ path: '/projects', body: { name: 'Once' }, effect: () => count('projects where workspace_id = ?', workspace.id) }),
  'POST /projects/{id}/cover': async () => {
    const id = (await workspace.client.post<{ id: string }>('/projects', { name: 'Covered' })).body.id;
    const image = await makeImage('png');
    // A new form for each attempt: each is sent with a boundary of its own, as a client retrying would.
    const form = () => {
      const data = new FormData();
      data.append('file', new Blob([new Uint8Array(image)], { type: 'image/png' }), 'cover.png');
      return data;
    };
    return { path: `/projects/${id}/cover`, body: form, effect: () => column('cover_key as value from projects where id = ?', id) };
  },
  'POST /brandkits': () => ({ path: '/brandkits', body: { name: 'Once' }, effect: () => count('brand_kits where workspace_id = ?', workspace.id) }),
  'POST /schedules': () => ({
    path: '/schedules',
    body: { name: 'Once', cronExpression: '0 9 * * *' },
    effect: () => count('schedules where workspace_id = ?', workspace.id),
  }),
  'POST /webhooks': () => ({
    path: '/webhooks',
    body: { url: receiver.url, events: 'post.failed' },
    effect: () => count('webhooks where workspace_id = ?', workspace.id),
  }),
  'POST /webhooks/{id}/test': async () => {
    const id = (await workspace.client.post<{ id: string }>('/webhooks', { url: receiver.url, events: 'post.failed' })).body.id;
    return {
      path: `/webhooks/${id}/test`,
      // A test sent again after a lost answer goes under the same delivery id: the receiver sees one test.
      effect: () => new Set(receiver.deliveries.filter((delivery) => delivery.rawBody.includes(id)).map((delivery) => delivery.headers['webhook-id'])).size,
      answer: (body) => (body as Schemas['TestWebhookResponse']).deliveryId,
    };
  },
  'POST /webhooks/{id}/deliveries/{deliveryId}/redeliver': async () => {
    const { hookId, deliveryId, nextAttempt } = await settledDelivery();
    return {
      path: `/webhooks/${hookId}/deliveries/${deliveryId}/redeliver`,
      // A second run would start the attempt after the next one (or answer 409 while the next one runs).
      effect: async () => [
        await workflowExists(workflowIds.webhookRedelivery(deliveryId, nextAttempt)),
        await workflowExists(workflowIds.webhookRedelivery(deliveryId, nextAttempt + 1)),
      ],
    };
  },
  'POST /social-connections': () => ({
    path: '/social-connections',
    body: { platform: 'mastodon', instanceUrl: mastodon.url, accessToken: mastodon.token },
    effect: () => count('social_connections where workspace_id = ?', workspace.id),
  }),
  'POST /social-connections/authorizations': async () => {
    const redirectUri = 'https://client.example/connected';
    expect((await workspace.client.call('PATCH', '/workspace', { body: { oauthRedirectUris: [redirectUri] } })).status).toBe(200);
    return {
      path: '/social-connections/authorizations',
      body: { platform: 'x', redirectUri },
      effect: () => count('oauth_authorizations where workspace_id = ?', workspace.id),
    };
  },
  'POST /social-connections/{id}/verify': async () => {
    const connection = await createXConnectionFixture(app.api.services.orm, app.config, { workspaceId: workspace.id, x, tokens: await xTokens(x) });
    return {
      path: `/social-connections/${connection.id}/verify`,
      // Each run asks X who the token belongs to.
      effect: () => x.requests.filter((request) => request.path === '/2/users/me').length,
    };
  },
  'POST /api-keys': () => ({ path: '/api-keys', body: { name: 'Once' }, effect: () => count('api_keys where workspace_id = ?', workspace.id) }),
  'POST /api-keys/{id}/regenerate': async () => {
    // Another key than the one the client sends: regenerating that one would make the retry unauthenticated.
    const id = (await workspace.client.post<{ id: string }>('/api-keys', { name: 'Rotated' })).body.id;
    return { path: `/api-keys/${id}/regenerate`, effect: () => column('key_hash as value from api_keys where id = ?', id) };
  },
};

const specPosts = Object.entries(parse(readFileSync(specPath, 'utf8')).paths as Record<string, Record<string, unknown>>)
  .filter(([, item]) => 'post' in item)
  .map(([path]) => `POST ${path}`);

describe('Idempotency-Key on every POST', () => {
  it('when openapi.yaml is read, then every POST operation has a retry scenario here (a new POST cannot be forgotten)', () => {
    expect(Object.keys(scenarios).sort()).toEqual([...specPosts].sort());
  });

  it.each(specPosts)('when %s is retried with the same key and request, then it ran once and the retry gets the first answer, replayed', async (operation) => {
    const scenario = await scenarios[operation]!();
    const key = newKey();
    const before = await scenario.effect();

    const first = await send(scenario.path, scenario.body, key);
    expect(first.status).toBeLessThan(300);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(first.headers.get('idempotent-recovered')).toBeNull();
    const afterFirst = await scenario.effect();
    expect(afterFirst).not.toEqual(before);

    const retry = await send(scenario.path, scenario.body, key);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.status).toBe(first.status);
    expect(retry.body).toEqual(first.body);
    for (const header of ['content-type', 'location']) expect(retry.headers.get(header)).toBe(first.headers.get(header));
    expect(retry.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(await scenario.effect()).toEqual(afterFirst);
  });
});

/** What a dead api leaves for its client's retry: the effect, and the key's lock run out with no answer stored. */
async function loseAnswer(key: string): Promise<void> {
  await app.api.services.orm.em
    .fork()
    .execute(
      `update idempotency_keys set response_status = null, response_headers = null, response_body = null, locked_until = now() where workspace_id = ? and key = ?`,
      [workspace.id, key],
      'run',
    );
}

// The operations whose run has no effect to find again: verify reads the platform and records what it answers.
const nothingToFindAgain = new Set(['POST /social-connections/{id}/verify']);

/** The answer without the signatures and expiry of its signed links, which are made afresh for each answer. */
function unsigned(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body).replace(/\?expires=\d+&signature=[^"]+/g, ''));
}

describe('Idempotency-Key on every POST, when the answer was lost', () => {
  it.each(specPosts.filter((operation) => !nothingToFindAgain.has(operation)))(
    'when %s ran and its api died before answering, then the retry finds what it did and does nothing again',
    async (operation) => {
      const scenario = await scenarios[operation]!();
      const key = newKey();
      const first = await send(scenario.path, scenario.body, key);
      expect(first.status).toBeLessThan(300);
      const afterFirst = await scenario.effect();
      await loseAnswer(key);

      const retry = await send(scenario.path, scenario.body, key);
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
      expect(retry.headers.get('idempotent-recovered')).toBe('true');
      expect(retry.status).toBe(first.status);
      const answer = scenario.answer ?? unsigned;
      expect(answer(retry.body)).toEqual(answer(first.body));
      expect(await scenario.effect()).toEqual(afterFirst);
    },
  );
});

describe('Idempotency-Key: a redelivery whose first send died before starting its attempt', () => {
  it('when another redelivery took that attempt meanwhile, then the retry redelivers as the next attempt and does not claim the other', async () => {
    const { hookId, deliveryId, nextAttempt } = await settledDelivery();
    const key = newKey();
    const path = `/webhooks/${hookId}/deliveries/${deliveryId}/redeliver`;
    const fingerprint = requestFingerprint({ workspaceId: workspace.id, key, method: 'POST', path: `/api/v1${path}`, hash: requestBodyHash({}) });
    // What its first send left: the attempt it was about to start, recorded; nothing started; no answer.
    await recordIntent(app.api.services.orm.em.fork(), workspace.id, fingerprint, 'webhook-redelivery', { resourceId: `${deliveryId}/${nextAttempt}` });
    // Another redelivery, sent without a key, takes that number.
    const other = await workspace.client.post<{ attempt: number }>(path);
    expect(other.status).toBe(202);
    expect(other.body.attempt).toBe(nextAttempt);
    await app.api.services.temporal.workflow.getHandle(workflowIds.webhookRedelivery(deliveryId, nextAttempt)).result();

    const retry = await send(path, undefined, key);
    expect(retry.status).toBe(202);
    expect((retry.body as { attempt: number }).attempt).toBe(nextAttempt + 1);
    expect(await workflowExists(workflowIds.webhookRedelivery(deliveryId, nextAttempt + 1))).toBe(true);
  });
});

describe('Idempotency-Key: an API key created, its answer lost, and the retry', () => {
  it('when the key has expired by the time of the retry, then the retry answers the key the first send made, not 400', async () => {
    const key = newKey();
    const body = { name: 'Short-lived', expiresAt: new Date(Date.now() + 2_000).toISOString() };
    const first = await send('/api-keys', body, key);
    expect(first.status).toBe(201);
    await loseAnswer(key);
    const issued = (first.body as { key: string }).key;
    await eventually(async () => expect((await workspace.client.get('/projects', { key: issued })).status).toBe(401));

    const retry = await send('/api-keys', body, key);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
  });

  it('when the key was regenerated by another request since, then the retry answers 409 rather than a secret that no longer works', async () => {
    const key = newKey();
    const first = await send('/api-keys', { name: 'Rotated since' }, key);
    expect(first.status).toBe(201);
    await loseAnswer(key);
    expect((await workspace.client.post(`/api-keys/${(first.body as { id: string }).id}/regenerate`)).status).toBe(200);

    const retry = await send('/api-keys', { name: 'Rotated since' }, key);
    expect(retry.status).toBe(409);
    expect(JSON.stringify(retry.body)).not.toContain((first.body as { key: string }).key);
  });
});

describe('Idempotency-Key: a retry after the answer was lost and another run since', () => {
  it.each([
    ['generate', 'PostGeneration'],
    ['render', 'PostRender'],
  ])('when a %s is retried after another request ran one on the post, then the retry answers its own and nothing is made again', async (action, usage) => {
    const id = await newPost({ generated: true });
    const key = newKey();
    const first = await send(`/posts/${id}/${action}`, {}, key);
    expect(first.status).toBe(200);
    await loseAnswer(key);
    // Another request's run of the same action: the post's latest run is no longer the key's.
    expect((await workspace.client.post(`/posts/${id}/${action}`)).status).toBe(200);
    const versions = await count('post_versions where post_id = ?', id);
    const charged = await count(`usage_activity where post_id = ? and type = ?`, id, usage);
    const providerCalls = stability.requests.length;

    const retry = await send(`/posts/${id}/${action}`, {}, key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-recovered')).toBe('true');
    expect(await count('post_versions where post_id = ?', id)).toBe(versions);
    expect(await count(`usage_activity where post_id = ? and type = ?`, id, usage)).toBe(charged);
    expect(stability.requests.length).toBe(providerCalls);
  });

  it('when a generate that failed is retried after another generation succeeded, then the retry answers its failure and the post keeps its image', async () => {
    const id = await newPost();
    const key = newKey();
    stability.script([{ status: 403, name: 'content_moderation', errors: ['Your request was flagged by our content moderation system'] }]);
    const first = await send(`/posts/${id}/generate`, {}, key);
    expect(first.status).toBe(422);
    await loseAnswer(key);
    expect((await workspace.client.post(`/posts/${id}/generate`)).status).toBe(200);
    const providerCalls = stability.requests.length;

    const retry = await send(`/posts/${id}/generate`, {}, key);
    expect(retry.status).toBe(422);
    expect((retry.body as Problem).detail).toBe((first.body as Problem).detail);
    expect(stability.requests.length).toBe(providerCalls);
    expect((await workspace.client.get<{ status: string }>(`/posts/${id}`)).body.status).not.toBe('failed');
  });
});

describe('Idempotency-Key: a retry after the answer was lost and the scheduled time has passed', () => {
  it('when a schedule is sent again after its time, then the retry answers the publication the first send planned, not 400', async () => {
    const id = await newPost();
    const key = newKey();
    const body = { scheduledAt: new Date(Date.now() + 2_000).toISOString() };
    const first = await send(`/posts/${id}/schedule`, body, key);
    expect(first.status).toBe(200);
    // Its api died before answering, and the client retries once the time has passed (the post went out meanwhile).
    await loseAnswer(key);
    await eventually(async () => expect(await count(`events where post_id = ? and type = 'post.published'`, id)).toBe(1));

    const retry = await send(`/posts/${id}/schedule`, body, key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-recovered')).toBe('true');
    expect(retry.body).toMatchObject({ id, status: 'published' });
    expect(await count(`events where post_id = ? and type = 'post.published'`, id)).toBe(1);
    // Without the key's plan, the same time is refused, as it always was.
    expect((await send(`/posts/${id}/schedule`, body, newKey())).status).toBe(400);
  });

  it('when a scheduled publish-social is sent again after its time, then the retry answers the targets the first send planned, not 400', async () => {
    const id = await newPost({ generated: true });
    const connectionId = await newMastodonConnection();
    const key = newKey();
    const body = { connectionIds: [connectionId], scheduledAt: new Date(Date.now() + 2_000).toISOString() };
    const statuses = mastodon.statuses.length;
    const first = await send(`/posts/${id}/publish-social`, body, key);
    expect(first.status).toBe(200);
    await loseAnswer(key);
    await eventually(() => Promise.resolve(expect(mastodon.statuses.length - statuses).toBe(1)));

    const retry = await send(`/posts/${id}/publish-social`, body, key);
    expect(retry.status).toBe(200);
    expect((retry.body as Array<{ id: string }>).map((target) => target.id)).toEqual((first.body as Array<{ id: string }>).map((target) => target.id));
    expect(mastodon.statuses.length - statuses).toBe(1);
  });
});

describe('Idempotency-Key: the key is bound to its first request', () => {
  it('when the same key comes with another body, then it answers 422 naming the body and creates nothing', async () => {
    const key = newKey();
    expect((await send('/projects', { name: 'First' }, key)).status).toBe(201);
    const projects = await count('projects where workspace_id = ?', workspace.id);
    const other = await send('/projects', { name: 'Second' }, key);
    expect(other.status).toBe(422);
    expect(other.headers.get('content-type')).toContain('application/problem+json');
    expect(other.body).toMatchObject({ type: '/problems/idempotency-key-reused', status: 422, detail: expect.stringContaining('another request body') });
    expect(await count('projects where workspace_id = ?', workspace.id)).toBe(projects);
  });

  it('when the same key comes on another operation, then it answers 422 naming the first one', async () => {
    const key = newKey();
    expect((await send('/brandkits', { name: 'Kit' }, key)).status).toBe(201);
    const other = await send('/projects', { name: 'Kit' }, key);
    expect(other.status).toBe(422);
    expect((other.body as Problem).detail).toContain('POST /api/v1/brandkits');
  });

  it('when the same body comes with its members reordered and respaced, then it is the same request and replayed', async () => {
    const key = newKey();
    const headers = { 'idempotency-key': key, 'content-type': 'application/json' };
    const first = await workspace.client.post('/posts', JSON.stringify({ title: 'Order', prompt: 'Any', projectId }), { headers });
    const retry = await workspace.client.post('/posts', `{ "projectId": "${projectId}",  "prompt": "Any", "title": "Order" }`, { headers });
    expect(first.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
  });

  it('when another workspace uses the same key, then its request runs on its own', async () => {
    const other = await createTestWorkspace(app, 'growth');
    const key = newKey();
    const mine = await send('/projects', { name: 'Shared key' }, key);
    const theirs = await send('/projects', { name: 'Shared key' }, key, other.client);
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect((theirs.body as { id: string }).id).not.toBe((mine.body as { id: string }).id);
    expect(await count('projects where workspace_id = ?', other.id)).toBe(1);
  });
});

describe('Idempotency-Key: a stored answer is a secret at rest', () => {
  it('when a new API key is created with a key, then the retry replays the same secret but the stored answer does not hold it', async () => {
    const key = newKey();
    const first = await send('/api-keys', { name: 'Sealed' }, key);
    const retry = await send('/api-keys', { name: 'Sealed' }, key);
    const secret = (first.body as { key: string }).key;
    expect(secret).toMatch(/^sk_/);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    const stored = String(await column('response_body as value from idempotency_keys where workspace_id = ? and key = ?', workspace.id, key));
    expect(stored.startsWith(`v2.${keyIdOf(app.config.secrets.encryptionKeys[0]!)}.`)).toBe(true);
    expect(stored).not.toContain(secret);
    // Sealed with a key of its own: the box of webhook secrets and social credentials cannot open it.
    expect(JSON.parse(app.api.services.idempotentAnswers.open(stored))).toEqual(first.body);
    expect(() => app.api.services.secrets.open(stored)).toThrow('it was altered or sealed with another key');
  });

  it('when an answer was stored sealed in the v1 format (before keys had ids), then the retry still replays it', async () => {
    const key = newKey();
    const first = await send('/api-keys', { name: 'Sealed before key ids' }, key);
    const body = JSON.stringify(first.body);
    await app.api.services.orm.em
      .fork()
      .execute('update idempotency_keys set response_body = ? where workspace_id = ? and key = ?', [
        sealV1(app.config.secrets.encryptionKeys[0]!, body),
        workspace.id,
        key,
      ]);
    const retry = await send('/api-keys', { name: 'Sealed before key ids' }, key);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
  });
});

describe('Idempotency-Key: which answers are kept', () => {
  it('when the first answer is a 4xx from the operation, then the retry gets that answer, replayed', async () => {
    const key = newKey();
    const path = '/posts/018f0000-0000-7000-8000-000000000000/publish';
    const first = await send(path, undefined, key);
    expect(first.status).toBe(404);
    const retry = await send(path, undefined, key);
    expect(retry.status).toBe(404);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(retry.body).toEqual(first.body);
  });

  it('when the answer is a 5xx, then the key is given back and the retry runs again', async () => {
    // A Mastodon instance that does not answer: the connection cannot be checked (503, nothing acknowledged).
    const gone = await startMastodonServer();
    await gone.close();
    const key = newKey();
    const body = { platform: 'mastodon', instanceUrl: gone.url, accessToken: 'token' };
    const first = await send('/social-connections', body, key);
    expect(first.status).toBe(503);
    expect(await count('idempotency_keys where workspace_id = ? and key = ?', workspace.id, key)).toBe(0);
    const retry = await send('/social-connections', body, key);
    expect(retry.status).toBe(503);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
  });

  it('when the request is refused before the operation (an invalid body), then the key is not used', async () => {
    const key = newKey();
    expect((await send('/projects', { name: '' }, key)).status).toBe(400);
    expect(await count('idempotency_keys where workspace_id = ? and key = ?', workspace.id, key)).toBe(0);
    expect((await send('/projects', { name: 'Valid now' }, key)).status).toBe(201);
  });

  it.each([
    ['empty', ''],
    ['longer than 255 characters', 'k'.repeat(256)],
    ['with a control character', 'key\tkey'],
  ])('when the key is %s, then it answers 400 naming the header', async (_what, key) => {
    const response = await send('/projects', { name: 'Bad key' }, key);
    expect(response.status).toBe(400);
    expect((response.body as Problem).errors).toEqual([expect.objectContaining({ location: 'header', path: 'idempotency-key' })]);
  });
});

describe('Idempotency-Key: retries while the first request runs', () => {
  it('when a generation is retried while it still runs, then the retry answers 409 with Retry-After and the workflow starts once', async () => {
    const id = await newPost();
    const key = newKey();
    const held = stability.hold();
    const first = send(`/posts/${id}/generate`, { seed: 11 }, key);
    await held.received;

    const retry = await send(`/posts/${id}/generate`, { seed: 11 }, key);
    expect(retry.status).toBe(409);
    expect(retry.body).toMatchObject({ type: '/problems/idempotency-key-in-use', status: 409 });
    expect(Number(retry.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    held.release();
    const answered = await first;
    expect([200, 202]).toContain(answered.status);
    await eventually(async () => expect(await count(`usage_activity where post_id = ? and type = 'PostGeneration'`, id)).toBe(1));
    const replayed = await send(`/posts/${id}/generate`, { seed: 11 }, key);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(answered.body);
    const generations = stability.requests.length;
    expect(await count('post_versions where post_id = ?', id)).toBe(1);
    expect(stability.requests.length).toBe(generations);
  });

  it('when the api died while the first request ran (its lock ran out), then a retry of the same request runs it', async () => {
    const key = newKey();
    const em = app.api.services.orm.em.fork();
    // What a dead process leaves: the key taken for the request, no answer, and a lock past its time.
    await em.execute(
      `insert into idempotency_keys (id, workspace_id, key, request_method, request_path, request_hash, lock_id, locked_until, created_at, expires_at)
       values (gen_random_uuid(), ?, ?, 'POST', '/api/v1/projects', ?, gen_random_uuid(), now() - interval '1 second', now(), now() + interval '1 day')`,
      [workspace.id, key, requestBodyHash({ name: 'Revived' })],
      'run',
    );
    const retry = await send('/projects', { name: 'Revived' }, key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.headers.get('idempotent-recovered')).toBe('true');
    expect((await send('/projects', { name: 'Revived' }, key)).headers.get('idempotent-replayed')).toBe('true');
  });
});

describe('Idempotency-Key: a retry after the answer was lost', () => {
  // What a 503 leaves when Temporal had taken the publication before the connection died: the effect, and the key
  // given back (its row deleted), so the client's retry runs the request again.
  const giveBack = (key: string) =>
    app.api.services.orm.em.fork().execute(`delete from idempotency_keys where workspace_id = ? and key = ?`, [workspace.id, key], 'run');

  it('when a create post is sent again with its key, then the retry answers the post the first one created', async () => {
    const key = newKey();
    const body = { title: 'Created once', prompt: 'Boats at night', projectId };
    const first = await send('/posts', body, key);
    expect(first.status).toBe(201);
    await giveBack(key);
    const retry = await send('/posts', body, key);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('location')).toBe(first.headers.get('location'));
    expect(await count(`posts where workspace_id = ? and title = 'Created once'`, workspace.id)).toBe(1);
  });

  it.each([
    ['a project', '/projects', { name: 'Made once' }, `projects where workspace_id = ? and name = 'Made once'`],
    ['a brand kit', '/brandkits', { name: 'Made once' }, `brand_kits where workspace_id = ? and name = 'Made once'`],
    [
      'a webhook',
      '/webhooks',
      { url: 'https://example.com/made-once', events: 'post.published' },
      `webhooks where workspace_id = ? and url like '%/made-once'`,
    ],
  ])('when creating %s is sent again with its key, then the retry answers what the first one created', async (_what, path, body, rows) => {
    const key = newKey();
    const first = await send(path, body, key);
    expect(first.status).toBe(201);
    await giveBack(key);
    const retry = await send(path, body, key);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(await count(rows, workspace.id)).toBe(1);
  });

  it('when what the first request created has been deleted since, then the retry answers 404 and creates nothing', async () => {
    const key = newKey();
    const body = { url: 'https://example.com/deleted-since', events: 'post.published' };
    const first = await send('/webhooks', body, key);
    expect(first.status).toBe(201);
    expect((await workspace.client.delete(`/webhooks/${(first.body as { id: string }).id}`)).status).toBe(204);
    await giveBack(key);
    const retry = await send('/webhooks', body, key);
    expect(retry.status).toBe(404);
    expect(retry.body).toMatchObject({ type: '/problems/not-found' });
    expect(await count(`webhooks where workspace_id = ? and url like '%/deleted-since'`, workspace.id)).toBe(0);
  });

  it('when a publish now is sent again with its key after its run ended, then the retry answers the same publication and nothing is published again', async () => {
    const id = await newPost();
    const key = newKey();
    const first = await send(`/posts/${id}/publish`, {}, key);
    expect(first.status).toBe(200);
    await giveBack(key);
    const retry = await send(`/posts/${id}/publish`, {}, key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.body).toEqual(first.body);
    expect(await count(`events where post_id = ? and type = 'post.published'`, id)).toBe(1);
  });

  it('when a generate is sent again with its key after its run ended, then the retry answers the same generation and nothing is generated again', async () => {
    const id = await newPost();
    const key = newKey();
    const first = await send(`/posts/${id}/generate`, {}, key);
    expect(first.status).toBe(200);
    await giveBack(key);
    const retry = await send(`/posts/${id}/generate`, {}, key);
    expect(retry.status).toBe(200);
    // The retry runs the request again, so its image link is signed anew (a second later, another expiry).
    expect(unsigned(retry.body)).toEqual(unsigned(first.body));
    expect(await count('post_versions where post_id = ?', id)).toBe(1);
    expect(await count(`usage_activity where post_id = ? and type = 'PostGeneration'`, id)).toBe(1);
  });

  it('when a publish-social is sent again with its key after its run ended, then the retry answers the same targets and the platform gets one status', async () => {
    const id = await newPost({ generated: true });
    const connectionId = await newMastodonConnection();
    const key = newKey();
    const statuses = mastodon.statuses.length;
    const first = await send(`/posts/${id}/publish-social`, { connectionIds: [connectionId] }, key);
    expect(first.status).toBe(200);
    await giveBack(key);
    const retry = await send(`/posts/${id}/publish-social`, { connectionIds: [connectionId] }, key);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(mastodon.statuses.length - statuses).toBe(1);
    expect(await count(`publish_targets where post_id = ?`, id)).toBe(1);
  });
});

describe('Idempotency-Key: expiry', () => {
  it('when a key is past its 24 hours, then the sweep deletes it and the key can be used afresh', async () => {
    const key = newKey();
    expect((await send('/projects', { name: 'Old' }, key)).status).toBe(201);
    const em = app.api.services.orm.em.fork();
    await em.execute(`update idempotency_keys set expires_at = now() - interval '1 second' where workspace_id = ? and key = ?`, [workspace.id, key], 'run');
    const live = newKey();
    expect((await send('/projects', { name: 'Live' }, live)).status).toBe(201);

    expect(await deleteExpiredIdempotencyKeys(app.api.services.orm)).toBeGreaterThanOrEqual(1);
    expect(await count('idempotency_keys where workspace_id = ? and key = ?', workspace.id, key)).toBe(0);
    expect(await count('idempotency_keys where workspace_id = ? and key = ?', workspace.id, live)).toBe(1);
    const fresh = await send('/projects', { name: 'New' }, key);
    expect(fresh.status).toBe(201);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
  });
});
