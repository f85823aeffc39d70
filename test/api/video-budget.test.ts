import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { startApiServer, type ApiServer } from '../../src/api/server.ts';
import { Post } from '../../src/adapters/database/entities/post.ts';
import type { Plan } from '../../src/adapters/database/entities/workspace.ts';
import { createWorkspace } from '../../src/domain/workspaces/create-workspace.ts';
import { planRules } from '../../src/domain/workspaces/plans.ts';
import { apiClient } from '../support/http.ts';
import { createTestDatabase } from '../support/test-database.ts';
import { testConfig } from '../support/test-config.ts';

// The budget of videos being made at once, per workspace. The api runs without a worker, so every job it starts
// stays queued in Temporal for as long as the test needs: the budget is full for certain, not for as long as an
// encode happens to take.

type Problem = Schemas['Problem'];

let api: ApiServer;
let dropDatabase: () => Promise<void>;
const started: string[] = [];

beforeAll(async () => {
  const database = await createTestDatabase();
  dropDatabase = database.drop;
  api = await startApiServer(testConfig(database.url), { validateResponses: true });
});
afterAll(async () => {
  // Nothing would ever run them: end them rather than leave them on the shared dev server.
  await Promise.allSettled(started.map((jobId) => api.services.temporal.workflow.getHandle(jobId).terminate('test over')));
  await api?.stop();
  await dropDatabase?.();
});

async function workspaceWithPosts(plan: Plan, count: number) {
  const { workspace, apiKey } = await createWorkspace(api.services.orm, { name: `${plan} videos`, plan });
  const client = apiClient(api.url, apiKey);
  const projectId = (await client.post<{ id: string }>('/projects', { name: 'Videos' })).body.id;
  const postIds: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const postId = (await client.post<{ id: string }>('/posts', { title: `Post ${index}`, prompt: 'Lanterns', projectId })).body.id;
    // As if generated: a video needs the post's image, and no worker runs here to make one.
    await api.services.orm.em.fork().nativeUpdate(Post, postId, { imageKey: `posts/${postId}/image.png` });
    postIds.push(postId);
  }
  return { workspaceId: workspace.id, apiKey, postIds };
}

async function startVideo(apiKey: string, postId: string): Promise<{ status: number; retryAfter: string | null; body: { jobId?: string } & Partial<Problem> }> {
  const response = await fetch(`${api.url}/dashboard/api/posts/${postId}/video`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` } });
  const body = (await response.json()) as { jobId?: string } & Partial<Problem>;
  if (body.jobId) started.push(body.jobId);
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body };
}

describe('videos being made at once', () => {
  it.each([['starter'], ['growth']] as const)(
    'when more videos are started at once than the %s plan makes at a time, then exactly its budget starts and the rest answer 429 with Retry-After',
    async (plan) => {
      const limit = planRules[plan].limits.concurrentVideos!;
      const { apiKey, postIds } = await workspaceWithPosts(plan, limit + 2);
      const answers = await Promise.all(postIds.map((postId) => startVideo(apiKey, postId)));
      expect(answers.filter((answer) => answer.status === 202)).toHaveLength(limit);
      const refused = answers.filter((answer) => answer.status === 429);
      expect(refused).toHaveLength(2);
      for (const answer of refused) {
        expect(answer.retryAfter).toBe('15');
        expect(answer.body).toMatchObject({ type: '/problems/rate-limited', detail: expect.stringContaining(`allows ${limit} videos encoding at once`) });
      }
    },
  );

  it('when a video of the full budget ends, then its place is free again; another workspace was never held up', async () => {
    const limit = planRules.growth.limits.concurrentVideos!;
    const full = await workspaceWithPosts('growth', limit + 1);
    const jobIds: string[] = [];
    for (const postId of full.postIds.slice(0, limit)) {
      const answer = await startVideo(full.apiKey, postId);
      expect(answer.status).toBe(202);
      jobIds.push(answer.body.jobId!);
    }
    const last = full.postIds.at(-1)!;
    expect((await startVideo(full.apiKey, last)).status).toBe(429);
    const neighbour = await workspaceWithPosts('growth', 1);
    expect((await startVideo(neighbour.apiKey, neighbour.postIds[0]!)).status).toBe(202);

    // A run that ends without recording it (an operator's terminate) no longer holds a place.
    await api.services.temporal.workflow.getHandle(jobIds[0]!).terminate('freeing a place');
    expect((await startVideo(full.apiKey, last)).status).toBe(202);
  });
});
