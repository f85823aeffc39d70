import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import type { Plan } from '../../src/adapters/database/entities/workspace.ts';
import { planRules } from '../../src/domain/workspaces/plans.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import { createTestWorkspace, type TestWorkspace } from '../support/workspaces.ts';

// The monthly budget of image generations per plan, counted from the workspace's usage items: the items are written
// straight into the table (as this many generations would have), so the budget is reached without generating it.

type Problem = Schemas['Problem'];

let app: TestApp;

beforeAll(async () => {
  ({ app } = await startAppWithWorkspace());
});
afterAll(() => app?.stop());

async function recordGenerations(workspace: TestWorkspace, count: number, at: Date): Promise<void> {
  await app.api.services.orm.em.execute(
    `insert into usage_activity (id, workspace_id, type, description, created_at)
     select gen_random_uuid(), ?, 'PostGeneration', 'An earlier generation.', ?::timestamptz from generate_series(1, ?)`,
    [workspace.id, at.toISOString(), count],
    'run',
  );
}

async function postOf(workspace: TestWorkspace): Promise<string> {
  const projectId = (await workspace.client.post<{ id: string }>('/projects', { name: 'Budget' })).body.id;
  return (await workspace.client.post<{ id: string }>('/posts', { title: 'Budget', prompt: 'Lanterns', projectId })).body.id;
}

describe('the monthly generation budget', () => {
  it.each(['starter', 'growth'] as Plan[])(
    "when a %s workspace has generated its month's budget, then a generation answers 403 plan-limit-reached with the usage, and nothing starts",
    async (plan) => {
      const workspace = await createTestWorkspace(app, plan);
      const limit = planRules[plan].limits.monthlyGenerations!;
      await recordGenerations(workspace, limit, new Date());
      const postId = await postOf(workspace);

      const refused = await workspace.client.post<Problem>(`/posts/${postId}/generate`, {});
      expect(refused.status).toBe(403);
      const now = new Date();
      const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
      expect(refused.body).toMatchObject({
        type: '/problems/plan-limit-reached',
        quota: { name: 'monthlyGenerations', plan, limit, used: limit, resetsAt: nextMonth },
      });
      expect(refused.body.detail).toContain(`allows ${limit} image generations a month`);
      const post = await workspace.client.get<Schemas['Post']>(`/posts/${postId}`);
      expect(post.body.imageUrl).toBeNull();
      const overview = await workspace.client.get<Schemas['Workspace']>('/workspace');
      expect(overview.body.usage.monthlyGenerations).toBe(limit);
      expect(overview.body.limits.monthlyGenerations).toBe(limit);
    },
  );

  it('when last month used the whole budget, then this month starts afresh', async () => {
    const workspace = await createTestWorkspace(app, 'starter');
    const now = new Date();
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1) - 86_400_000);
    await recordGenerations(workspace, planRules.starter.limits.monthlyGenerations!, lastMonth);
    await recordGenerations(workspace, 2, now);
    const postId = await postOf(workspace);

    const generated = await workspace.client.post(`/posts/${postId}/generate`, {});
    expect([200, 202]).toContain(generated.status);
    const overview = await workspace.client.get<Schemas['Workspace']>('/workspace');
    expect(overview.body.usage.monthlyGenerations).toBeGreaterThanOrEqual(2);
  });
});
