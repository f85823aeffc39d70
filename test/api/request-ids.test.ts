import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import type { TestWorkspace } from '../support/workspaces.ts';

// Request ids do not depend on logging: with logs off (LOG_LEVEL=silent) as with logs on, every
// answer still carries one, and a problem body names it.
describe.each(['error', 'silent'])('with LOG_LEVEL=%s', (level) => {
  let app: TestApp;
  let workspace: TestWorkspace;

  beforeAll(async () => {
    ({ app, workspace } = await startAppWithWorkspace({ env: { LOG_LEVEL: level } }));
  });
  afterAll(() => app?.stop());

  it('when the caller sends a sensible X-Request-Id, then the answer echoes it', async () => {
    const response = await workspace.client.get('/projects', { headers: { 'x-request-id': 'client-42.a:b' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('client-42.a:b');
  });

  it('when the caller sends none or an unusable one, then the answer carries a new id, and a problem body names it', async () => {
    const response = await workspace.client.get<Schemas['Problem']>('/posts/not-a-uuid', { headers: { 'x-request-id': 'has spaces' } });
    expect(response.status).toBe(400);
    const id = response.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.body.requestId).toBe(id);
  });
});
