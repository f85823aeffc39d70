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
    ['GET', `/video/jobs/${anId}`, undefined, 'getVideoJob'],
    ['GET', `/video/presign/${anId}`, undefined, 'getVideoPresignedUrl'],
  ])('when %s %s is called, then it answers 501 with the standard problem body', async (method, path, body, operationId) => {
    const response = await workspace.client.call<Schemas['Problem']>(method, path, { body });
    expect(response.status).toBe(501);
    expect(response.body).toMatchObject({ type: '/problems/not-implemented', status: 501, title: 'Not implemented' });
    expect(response.body.detail).toContain(operationId);
  });

  it('when the request is invalid, then it is still validated first (400)', async () => {
    const response = await workspace.client.get<Schemas['Problem']>('/video/presign/not-an-id');
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([expect.objectContaining({ location: 'path', path: 'postId' })]);
  });
});
