import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { createTestWorkspace, type TestWorkspace } from '../support/workspaces.ts';

let app: TestApp;
let workspace: TestWorkspace;
beforeAll(async () => {
  app = await startTestApp();
  workspace = await createTestWorkspace(app, 'growth');
});
afterAll(() => app?.stop());

const anId = '018f0000-0000-7000-8000-000000000000';

describe('operations whose feature has not landed', () => {
  it.each([
    ['POST', `/posts/${anId}/publish`, undefined, 'publishPost'],
    ['POST', `/posts/${anId}/schedule`, { scheduledAt: '2030-01-01T00:00:00Z' }, 'schedulePost'],
    ['GET', `/posts/${anId}/publish-targets`, undefined, 'listPublishTargets'],
    ['GET', '/schedules', undefined, 'listSchedules'],
    ['POST', '/webhooks', { url: 'https://example.com/hook', events: 'post.published' }, 'createWebhook'],
    ['GET', `/video/jobs/${anId}`, undefined, 'getVideoJob'],
  ])('when %s %s is called, then it answers 501 with the standard problem body', async (method, path, body, operationId) => {
    const response = await workspace.client.call<Schemas['Problem']>(method, path, { body });
    expect(response.status).toBe(501);
    expect(response.body).toMatchObject({ type: '/problems/not-implemented', status: 501, title: 'Not implemented' });
    expect(response.body.detail).toContain(operationId);
  });

  it('when the request is invalid, then it is still validated first (400)', async () => {
    const response = await workspace.client.post<Schemas['Problem']>(`/posts/${anId}/schedule`, { scheduledAt: 'soon' });
    expect(response.status).toBe(400);
    expect(response.body.errors?.map((error) => error.path)).toContain('/scheduledAt');
  });
});
