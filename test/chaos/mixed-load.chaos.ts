import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openDatabase, type Database } from '../../src/adapters/database/orm.ts';
import { createWorkspace } from '../../src/domain/workspaces/create-workspace.ts';
import { startMastodonServer, type MastodonServer } from '../fakes/mastodon-server.ts';
import { startStabilityServer, type StabilityServer } from '../fakes/stability-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { startApiProcess } from '../support/api-process.ts';
import { eventually } from '../support/eventually.ts';
import { apiClient, type ApiResponse } from '../support/http.ts';
import { stopProcesses } from '../support/stop-processes.ts';
import { testConfigEnv } from '../support/test-config.ts';
import { createTestDatabase } from '../support/test-database.ts';
import { startWorkerProcess } from '../support/worker-process.ts';

// `npm run chaos`: the service as operators run it (two apis, two workers, one PostgreSQL and Temporal) under mixed
// keyed load (create, generate, publish now, publish-social to Mastodon, schedule), while each process in turn is
// killed with SIGKILL and started again. A client sends each request to one api and, on no answer, a 5xx, 409 or
// 429, retries it with the same Idempotency-Key on the other, as a client behind a load balancer does. Afterwards
// every acknowledged request must have had its effect once, and nothing (acknowledged or not) twice: one post per
// create, one version per generate, one Mastodon status and one post.published (under one delivery id) per post.
// Not part of `npm test`: it runs for minutes and its point is the load, not a fixed case (docs/testing.md).

const loadSeconds = Number(process.env.CHAOS_SECONDS ?? 120);
const clients = Number(process.env.CHAOS_CLIENTS ?? 6);
const killEveryMs = Number(process.env.CHAOS_KILL_EVERY_MS ?? 7_000);

type Kind = 'now' | 'social' | 'schedule';
type Slot = { role: 'api' | 'worker'; process: ChildProcess; url?: string };
type Tracked = { title: string; prompt: string; postId?: string; kind: Kind; generated: boolean; published: boolean; scheduledAt?: number };

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let orm: Database;
let mastodon: MastodonServer;
let stability: StabilityServer;
let receiver: WebhookReceiver;
let env: Record<string, string>;
let apiKey: string;
let projectId: string;
let connectionId: string;
const slots: Slot[] = [];
const tally = { sent: 0, retried: 0, unanswered: 0, kills: 0, statuses: new Map<number, number>(), refusals: new Map<string, number>() };

beforeAll(async () => {
  database = await createTestDatabase();
  orm = await openDatabase(database.url);
  [mastodon, stability, receiver] = await Promise.all([startMastodonServer(), startStabilityServer(), startWebhookReceiver()]);
  env = {
    ...testConfigEnv(database.url),
    STABILITY_API_KEY: stability.apiKey,
    STABILITY_API_URL: stability.url,
    SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
    NODE_EXTRA_CA_CERTS: inject('devCaCertPath'),
    RATE_LIMIT_REQUESTS: '100000',
    DATABASE_POOL_MAX: '10',
  };
  for (const role of ['api', 'worker', 'api', 'worker'] as const) slots.push(await start(role));
  ({ apiKey } = await createWorkspace(orm, { name: 'Chaos', plan: 'growth' }));
  const client = apiClient(slots[0]!.url!, apiKey);
  projectId = (await client.post<{ id: string }>('/projects', { name: 'Chaos' })).body.id;
  connectionId = (await client.post<{ id: string }>('/social-connections', { platform: 'mastodon', instanceUrl: mastodon.url, accessToken: mastodon.token }))
    .body.id;
  expect((await client.post('/webhooks', { url: receiver.url, events: 'post.published' })).status).toBe(201);
}, 240_000);

afterAll(async () => {
  await stopProcesses(slots.map((slot) => slot.process));
  await Promise.all([mastodon?.close(), stability?.close(), receiver?.close()]);
  await orm?.close();
  await database?.drop();
});

async function start(role: Slot['role']): Promise<Slot> {
  if (role === 'worker') return { role, process: (await startWorkerProcess(env)).process };
  const api = await startApiProcess(env);
  return { role, process: api.process, url: api.url };
}

/** The api urls as they are now (a restarted api listens on a new port). */
const apiUrls = () => slots.filter((slot) => slot.role === 'api').map((slot) => slot.url!);

/**
 * Sends one keyed request until it gets an answer that is final (2xx or a 4xx other than 409 and 429), switching api
 * on every failure; undefined when none came within three minutes.
 */
async function keyed<T>(path: string, body: unknown, first: number): Promise<ApiResponse<T> | undefined> {
  const headers = { 'idempotency-key': randomUUID() };
  const deadline = Date.now() + 180_000;
  for (let attempt = first; Date.now() < deadline; attempt += 1) {
    if (attempt > first) tally.retried += 1;
    tally.sent += 1;
    const url = apiUrls()[attempt % 2]!;
    const response = await apiClient(url, apiKey)
      .post<T>(path, body, { headers })
      .catch(() => undefined);
    if (response) tally.statuses.set(response.status, (tally.statuses.get(response.status) ?? 0) + 1);
    if (response && response.status < 500 && response.status !== 409 && response.status !== 429) {
      if (response.status >= 400) {
        const refusal = `${response.status} ${path.replace(/[0-9a-f-]{36}/g, '{id}')}: ${(response.body as { detail?: string }).detail ?? ''}`;
        tally.refusals.set(refusal, (tally.refusals.get(refusal) ?? 0) + 1);
      }
      return response;
    }
    const retryAfter = Number(response?.headers.get('retry-after') ?? 0.5);
    await new Promise((resolveWait) => setTimeout(resolveWait, Math.min(retryAfter, 5) * 1000));
  }
  tally.unanswered += 1;
  return undefined;
}

/** One client's loop: a post, then its kind's work, until the load ends. */
async function clientLoop(index: number, until: number, tracked: Tracked[]): Promise<void> {
  for (let round = 0; Date.now() < until; round += 1) {
    const kind = (['now', 'social', 'schedule'] as const)[(index + round) % 3]!;
    const post: Tracked = { title: `Chaos ${index}-${round}`, prompt: `A lighthouse ${randomUUID()}`, kind, generated: false, published: false };
    tracked.push(post);
    const created = await keyed<{ id: string }>('/posts', { title: post.title, prompt: post.prompt, projectId }, index + round);
    if (created?.status !== 201) continue;
    post.postId = created.body.id;
    if (kind === 'now') {
      post.published = [200, 202].includes((await keyed(`/posts/${post.postId}/publish`, {}, round))?.status ?? 0);
    } else if (kind === 'social') {
      post.generated = [200, 202].includes((await keyed(`/posts/${post.postId}/generate`, {}, round))?.status ?? 0);
      if (post.generated) {
        await eventually(
          async () => expect((await orm.em.fork().execute(`select 1 from posts where id = ? and image_key is not null`, [post.postId])).length).toBe(1),
          120_000,
        );
        post.published = (await keyed(`/posts/${post.postId}/publish-social`, { connectionIds: [connectionId] }, round))?.status === 200;
      }
    } else {
      const scheduledAt = Date.now() + 15_000;
      post.published = (await keyed(`/posts/${post.postId}/schedule`, { scheduledAt: new Date(scheduledAt).toISOString() }, round))?.status === 200;
      post.scheduledAt = scheduledAt;
    }
  }
}

/** Every `killEveryMs` the next process in turn (api, worker, api, worker) is killed with SIGKILL and started again. */
async function killInTurn(until: number): Promise<void> {
  for (let next = 0; Date.now() < until; next += 1) {
    await new Promise((resolveWait) => setTimeout(resolveWait, killEveryMs));
    const index = next % slots.length;
    const slot = slots[index]!;
    slot.process.kill('SIGKILL');
    tally.kills += 1;
    slots[index] = await start(slot.role);
  }
}

async function countOf(sql: string, ...params: unknown[]): Promise<number> {
  const [row] = await orm.em.fork().execute<Array<{ n: string }>>(`select count(*) as n from ${sql}`, params);
  return Number(row!.n);
}

describe('chaos: two apis and two workers killed in turn under mixed keyed load', () => {
  it(
    'when every failed request is retried with its key on the other api, then nothing happens twice and nothing acknowledged is lost',
    { timeout: (loadSeconds + 600) * 1000 },
    async () => {
      const until = Date.now() + loadSeconds * 1000;
      const tracked: Tracked[] = [];
      await Promise.all([killInTurn(until), ...Array.from({ length: clients }, (_, index) => clientLoop(index, until, tracked))]);

      const duplicates: string[] = [];
      const lost: string[] = [];
      for (const post of tracked) {
        const posts = await countOf('posts where title = ?', post.title);
        if (posts > 1) duplicates.push(`${post.title}: ${posts} posts`);
        if (post.postId && posts === 0) lost.push(`${post.title}: created, then not found`);
      }
      const settled = tracked.filter((post) => post.postId);
      // Everything acknowledged has happened once the workers have caught up (schedules fire 15 s after they were set).
      await eventually(async () => {
        for (const post of settled.filter((candidate) => candidate.published)) {
          expect(await countOf(`events where post_id = ? and type = 'post.published'`, post.postId)).toBeGreaterThanOrEqual(1);
        }
      }, 300_000);
      // And each has been announced to the webhook.
      await eventually(() => {
        for (const post of settled.filter((candidate) => candidate.published)) {
          expect(receiver.deliveries.some((delivery) => delivery.rawBody.includes(post.postId!) && delivery.rawBody.includes('post.published'))).toBe(true);
        }
        return Promise.resolve();
      }, 300_000);
      for (const post of settled) {
        const events = await countOf(`events where post_id = ? and type = 'post.published'`, post.postId);
        const versions = await countOf('post_versions where post_id = ?', post.postId);
        const statuses = mastodon.statuses.filter((status) => status.text === post.title).length;
        const deliveries = new Set(
          receiver.deliveries
            .filter((delivery) => delivery.rawBody.includes(post.postId!) && delivery.rawBody.includes('post.published'))
            .map((d) => d.deliveryId),
        ).size;
        if (events > 1) duplicates.push(`${post.title}: ${events} post.published events`);
        if (versions > 1) duplicates.push(`${post.title}: ${versions} versions`);
        if (statuses > 1) duplicates.push(`${post.title}: ${statuses} Mastodon statuses`);
        if (deliveries > 1) duplicates.push(`${post.title}: post.published under ${deliveries} delivery ids`);
        if (post.generated && versions === 0) lost.push(`${post.title}: generation acknowledged, no version`);
        if (post.published && events === 0) lost.push(`${post.title}: ${post.kind} acknowledged, never published`);
        if (post.published && post.kind === 'social' && statuses === 0) lost.push(`${post.title}: publish-social acknowledged, no status`);
      }

      const acknowledged = (kind: Kind) => settled.filter((post) => post.kind === kind && post.published).length;
      console.log(
        [
          `chaos: ${loadSeconds} s of load from ${clients} clients, ${tally.kills} kills (every ${killEveryMs} ms, api and worker in turn)`,
          `requests sent ${tally.sent}, of them retries ${tally.retried}, unanswered after 3 min ${tally.unanswered}`,
          `answers by status: ${[...tally.statuses]
            .sort(([a], [b]) => a - b)
            .map(([status, n]) => `${status}×${n}`)
            .join(', ')}`,
          `acknowledged: ${settled.length} creates, ${settled.filter((post) => post.generated).length} generates, ${acknowledged('now')} publish now, ` +
            `${acknowledged('social')} publish-social, ${acknowledged('schedule')} schedules`,
          ...[...tally.refusals].map(([refusal, n]) => `  refused ×${n}: ${refusal}`),
          `duplicates ${duplicates.length}, lost ${lost.length}`,
          ...duplicates.map((line) => `  duplicate: ${line}`),
          ...lost.map((line) => `  lost: ${line}`),
        ].join('\n'),
      );
      expect(duplicates).toEqual([]);
      expect(lost).toEqual([]);
    },
  );
});
