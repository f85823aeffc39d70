import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { changePlan } from '../../src/domain/workspaces/change-plan.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { createTestWorkspace } from '../support/workspaces.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

describe('GET /workspace', () => {
  it('when called, then it reports the plan, its limits and their use, and follows a plan change', async () => {
    const starter = await createTestWorkspace(app, 'starter', 'Quota check');
    await starter.client.post('/projects', { name: 'One' });
    await starter.client.post('/brandkits', { name: 'Kit' });

    const before = await starter.client.get<Schemas['Workspace']>('/workspace');
    expect(before.status).toBe(200);
    expect(before.body).toEqual({
      id: starter.id,
      name: 'Quota check',
      plan: 'starter',
      limits: {
        activeProjects: 3,
        brandKits: 1,
        schedules: 0,
        webhooks: 0,
        apiKeys: 0,
        socialConnections: 3,
        concurrentVideos: 1,
        scheduleIntervalMinutes: null,
        monthlyGenerations: 100,
      },
      usage: { activeProjects: 1, brandKits: 1, schedules: 0, webhooks: 0, apiKeys: 1, socialConnections: 0, concurrentVideos: 0, monthlyGenerations: 0 },
      features: { apiKeys: false, schedules: false, webhooks: false },
      oauthRedirectUris: [],
    });

    await changePlan(app.api.services, starter.id, 'growth');
    const after = await starter.client.get<Schemas['Workspace']>('/workspace');
    expect(after.body).toMatchObject({
      plan: 'growth',
      limits: {
        activeProjects: null,
        brandKits: null,
        schedules: 50,
        webhooks: 50,
        apiKeys: 25,
        socialConnections: 25,
        concurrentVideos: 2,
        scheduleIntervalMinutes: 15,
        monthlyGenerations: 3000,
      },
    });
    expect((await starter.client.get('/api-keys')).status).toBe(200);
  });
});
