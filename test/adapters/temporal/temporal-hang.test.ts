import { once } from 'node:events';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../../src/api/schemas.ts';
import { Post } from '../../../src/adapters/database/entities/post.ts';
import { Schedule } from '../../../src/adapters/database/entities/schedule.ts';
import { PostVersion } from '../../../src/adapters/database/entities/post-version.ts';
import { PublishTarget } from '../../../src/adapters/database/entities/publish-target.ts';
import { UsageActivity } from '../../../src/adapters/database/entities/usage-activity.ts';
import { startTemporalDevServer, type TemporalDevServer } from '../../../src/local/embedded/temporal-dev-server.ts';
import { startMastodonServer, type MastodonServer } from '../../fakes/mastodon-server.ts';
import { eventually } from '../../support/eventually.ts';
import type { ApiResponse } from '../../support/http.ts';
import { startAppWithWorkspace } from '../../support/app-with-workspace.ts';
import type { TestApp } from '../../support/test-app.ts';
import type { TestWorkspace } from '../../support/workspaces.ts';
import { answerWithin } from '../../support/answer-within.ts';
import { apiClient } from '../../support/http.ts';
import { startApiProcess } from '../../support/api-process.ts';
import { testConfigEnv } from '../../support/test-config.ts';

// A hung Temporal (its process suspended with SIGSTOP: connections stay open, nothing answers) is the worst outage
// for a client, since nothing fails fast by itself. Every action that needs Temporal answers 503 with Retry-After
// within a bound and changes nothing in the database; the same request after the server resumes does the work once.

// Temporal's deadline here (10 s by default), which every action below waits out once.
const callTimeoutSeconds = 3;
// Generous: the promise is "about one deadline", this only catches a hang.
const answerBoundMs = 4 * callTimeoutSeconds * 1000;

let temporal: TemporalDevServer;
let mastodon: MastodonServer;
let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;
let connectionId: string;
let suspended = false;

beforeAll(async () => {
  mastodon = await startMastodonServer();
  temporal = await startTemporalDevServer({ headless: true });
  ({ app, workspace, projectId } = await startAppWithWorkspace({
    env: { TEMPORAL_ADDRESS: temporal.address, TEMPORAL_CALL_TIMEOUT_SECONDS: String(callTimeoutSeconds), SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true' },
    project: 'Hung Temporal',
  }));
  connectionId = (
    await workspace.client.post<{ id: string }>('/social-connections', { platform: 'mastodon', instanceUrl: mastodon.url, accessToken: mastodon.token })
  ).body.id;
});
afterAll(async () => {
  if (suspended) process.kill(temporal.pid, 'SIGCONT');
  await app?.stop();
  await temporal?.stop();
  await mastodon?.close();
});

type Action = {
  name: string;
  /** The post needs an image first. */
  generated?: boolean;
  send: (postId: string) => Promise<ApiResponse>;
  /** What the post looks like once the work was done, exactly once. */
  done: (postId: string) => Promise<void>;
};

// Every POST goes with an Idempotency-Key, the same for the attempt during the hang and each retry after it, as
// a client that retries should (docs/api.md, "Idempotency"): a 503 cut off while Temporal came back may have had its start carried
// out, and only the key tells the retry to join that run rather than to do the work again (a render that had already
// finished would otherwise render a second version).
const keyed = (action: string, postId: string) => ({ headers: { 'idempotency-key': `temporal-hang-${action}-${postId}` } });

const inHours = (hours: number) => new Date(Date.now() + hours * 3600_000).toISOString();
const scheduledAt = inHours(24);

const actions: Action[] = [
  {
    name: 'POST /posts/{id}/generate',
    send: (id) => workspace.client.post(`/posts/${id}/generate`, { prompt: 'A harbour at dawn' }, keyed('generate', id)),
    done: async (id) => {
      expect(await countOf(id)).toMatchObject({ versions: 1, usage: { PostGeneration: 1 } });
    },
  },
  {
    name: 'POST /posts/{id}/render',
    generated: true,
    send: (id) => workspace.client.post(`/posts/${id}/render`, undefined, keyed('render', id)),
    done: async (id) => {
      expect(await countOf(id)).toMatchObject({ versions: 2, usage: { PostGeneration: 1, PostRender: 1 } });
    },
  },
  {
    name: 'POST /posts/{id}/publish',
    send: (id) => workspace.client.post(`/posts/${id}/publish`, undefined, keyed('publish', id)),
    done: async (id) => {
      expect(await countOf(id)).toMatchObject({ status: 'published', usage: { PostPublish: 1 } });
    },
  },
  {
    name: 'POST /posts/{id}/schedule',
    send: (id) => workspace.client.post(`/posts/${id}/schedule`, { scheduledAt }, keyed('schedule', id)),
    done: async (id) => {
      expect(await countOf(id)).toMatchObject({ status: 'scheduled', scheduledAt: new Date(scheduledAt).toISOString() });
    },
  },
  {
    name: 'POST /posts/{id}/publish-social',
    generated: true,
    send: (id) => workspace.client.post(`/posts/${id}/publish-social`, { connectionIds: [connectionId] }, keyed('publish-social', id)),
    done: async (id) => {
      expect(await countOf(id)).toMatchObject({ status: 'published', targets: 1, usage: { PostGeneration: 1, SocialPublish: 1 } });
      expect(mastodon.statuses.filter((status) => status.text === `Post ${id}`)).toHaveLength(1);
    },
  },
  {
    name: 'PUT /posts/{id} with a status',
    send: (id) => workspace.client.put(`/posts/${id}`, { status: 'published', title: `Post ${id} (edited)` }),
    done: async (id) => {
      expect(await countOf(id)).toMatchObject({ status: 'published', title: `Post ${id} (edited)`, usage: { PostPublish: 1 } });
    },
  },
];

describe('actions while the Temporal server hangs', () => {
  it(
    'when Temporal hangs, then each action answers 503 with Retry-After and changes nothing; after it resumes, the same request does the work once',
    { timeout: 180_000 },
    async () => {
      const posts = await Promise.all(actions.map((action) => newPost(action.generated ?? false)));
      const before = await Promise.all(posts.map(countOf));

      process.kill(temporal.pid, 'SIGSTOP');
      suspended = true;
      const answers = await Promise.all(
        actions.map(async (action, index) => {
          const response = await answerWithin(action.send(posts[index]!), answerBoundMs);
          return {
            action: action.name,
            status: response?.status ?? 'no answer',
            type: (response?.body as Schemas['Problem'] | undefined)?.type,
            retryAfter: response?.headers.get('retry-after'),
          };
        }),
      );
      expect(answers).toEqual(
        actions.map((action) => ({ action: action.name, status: 503, type: '/problems/service-unavailable', retryAfter: expect.stringMatching(/^\d+$/) })),
      );
      expect(await Promise.all(posts.map(countOf))).toEqual(before);

      process.kill(temporal.pid, 'SIGCONT');
      suspended = false;
      for (const [index, action] of actions.entries()) {
        const postId = posts[index]!;
        // The client's connection may need a moment to notice the server is back; a client retries 503s.
        const response = await eventually(async () => {
          const retried = await action.send(postId);
          expect(retried.status, `${action.name}: ${JSON.stringify(retried.body)}`).not.toBe(503);
          return retried;
        }, 60_000);
        // A retry cut off while the server came back (503) may still have had its start carried out (workflow-gateway.ts
        // says so): the next retry then finds that run going (409) rather than starting another.
        const detail = (response.body as Schemas['Problem'] | undefined)?.detail ?? '';
        const foundRunning = response.status === 409 && /^There is already .* running/.test(detail);
        expect(response.status === 200 || response.status === 202 || foundRunning, `${action.name}: ${JSON.stringify(response.body)}`).toBe(true);
        await eventually(() => action.done(postId), 30_000);
      }
      // Exactly once: the request that answered 503 left no run behind that Temporal could take up later.
      for (const postId of posts) {
        const runs = [];
        for await (const run of app.api.services.temporal.workflow.list({ query: `postId = "${postId}"` })) runs.push(run.workflowId);
        expect(runs.length).toBeGreaterThan(0);
        expect(new Set(runs).size, `runs of post ${postId}: ${runs.join(', ')}`).toBe(runs.length);
      }
    },
  );
});

describe('a schedule created while the Temporal server hangs', () => {
  it(
    'when Temporal hangs, then POST /schedules answers 503 after one deadline, not one for the create and another for taking it back, and keeps no row',
    { timeout: 90_000 },
    async () => {
      // An api process of its own on the same database and Temporal, for its log: the take-back's outcome is only logged.
      const api = await startApiProcess({
        ...testConfigEnv(app.config.database.url),
        TEMPORAL_ADDRESS: temporal.address,
        TEMPORAL_CALL_TIMEOUT_SECONDS: String(callTimeoutSeconds),
      });
      const workspaceLock = new pg.Client({ connectionString: app.config.database.url });
      await workspaceLock.connect();
      try {
        process.kill(temporal.pid, 'SIGSTOP');
        suspended = true;
        const answer = apiClient(api.url, workspace.key).post<Schemas['Problem']>('/schedules', { name: 'While hung', cronExpression: '0 9 * * *' });
        // The create holds the workspace's lock while it waits for Temporal; the lock goes when the create has given up.
        await eventually(async () => expect(await workspaceLocked(workspaceLock)).toBe(true), 20_000);
        await eventually(async () => expect(await workspaceLocked(workspaceLock)).toBe(false), 30_000);
        // Temporal answers again from here on: a take-back with a deadline of its own would now reach it and succeed.
        process.kill(temporal.pid, 'SIGCONT');
        suspended = false;
        const response = await answer;

        expect(response.status).toBe(503);
        expect(response.body).toMatchObject({
          type: '/problems/service-unavailable',
          detail: expect.stringContaining('Temporal did not confirm that it would accept the schedule change'),
        });
        expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
        // The take-back had only what was left of the request's deadline, nothing: it gave up before Temporal was back.
        await eventually(() => Promise.resolve(expect(api.output()).toContain('orphan schedule left for reconcile')));
        expect(api.output()).toContain('Temporal did not confirm that it would take the schedule back');
        expect(await app.api.services.orm.em.fork().count(Schedule, { workspaceId: workspace.id, name: 'While hung' })).toBe(0);
      } finally {
        await workspaceLock.end();
        api.process.kill('SIGTERM');
        await once(api.process, 'exit');
      }
    },
  );
});

/** Whether another transaction holds the workspace's row lock (taken and let go here at once when it is free). */
async function workspaceLocked(client: pg.Client): Promise<boolean> {
  await client.query('begin');
  try {
    await client.query('select id from workspaces where id = $1 for update nowait', [workspace.id]);
    return false;
  } catch (error) {
    if ((error as { code?: string }).code === '55P03') return true;
    throw error;
  } finally {
    await client.query('rollback');
  }
}

async function newPost(generated: boolean): Promise<string> {
  const created = await workspace.client.post<Schemas['Post']>('/posts', { title: 'Draft', prompt: 'Boats at night', projectId });
  const id = created.body.id;
  expect((await workspace.client.put(`/posts/${id}`, { title: `Post ${id}` })).status).toBe(200);
  if (generated) expect((await workspace.client.post(`/posts/${id}/generate`)).status).toBe(200);
  return id;
}

/** What the outage must not change: the post, its publish targets, versions and usage items. */
async function countOf(postId: string) {
  const em = app.api.services.orm.em.fork();
  const post = await em.findOneOrFail(Post, postId);
  const usage: Record<string, number> = {};
  for (const item of await em.find(UsageActivity, { postId })) usage[item.type] = (usage[item.type] ?? 0) + 1;
  return {
    status: post.status,
    title: post.title,
    scheduledAt: post.scheduledAt?.toISOString() ?? null,
    imageKey: post.imageKey,
    targets: await em.count(PublishTarget, { postId }),
    versions: await em.count(PostVersion, { postId }),
    usage,
  };
}
