import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { WorkspaceEvent } from '../../src/adapters/database/entities/workspace-event.ts';
import { startStabilityServer, type StabilityServer } from '../fakes/stability-server.ts';
import { eventually } from '../support/eventually.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import type { TestWorkspace } from '../support/workspaces.ts';

// Generation through the API with Stability AI configured (a local server speaking its API), and an api that waits
// eight seconds (room for a loaded machine; a held provider request outlasts it): slow generations answer 202,
// concurrent ones 409, refused ones 422.

type Problem = Schemas['Problem'];
type Generated = Schemas['GeneratePostResponse'];

let stability: StabilityServer;
let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;

beforeAll(async () => {
  stability = await startStabilityServer();
  ({ app, workspace, projectId } = await startAppWithWorkspace({
    env: { STABILITY_API_KEY: stability.apiKey, STABILITY_API_URL: stability.url, API_WAIT_SECONDS: '8' },
    project: 'Stability',
  }));
});
afterAll(async () => {
  await app?.stop();
  await stability?.close();
});

async function newPost(): Promise<string> {
  return (await workspace.client.post<{ id: string }>('/posts', { title: 'Storm', prompt: 'A lighthouse in a storm', projectId })).body.id;
}

describe('POST /posts/{id}/generate with Stability AI', () => {
  it('when the provider answers in time, then respond names Stability AI and the seed', async () => {
    const postId = await newPost();
    const response = await workspace.client.post<Generated>(`/posts/${postId}/generate`, { seed: 1234 });
    expect(response.status).toBe(200);
    expect(response.body.respond).toContain('Stability AI');
    expect(response.body.respond).toContain('1234');
  });

  it('when generation outlasts the wait, then it answers 202 with Location, a second generate answers 409, and the post updates later', async () => {
    const postId = await newPost();
    const held = stability.hold();
    const first = await workspace.client.post<Generated>(`/posts/${postId}/generate`);
    expect(first.status).toBe(202);
    expect(first.headers.get('location')).toBe(`/api/v1/posts/${postId}`);
    expect(first.body.post.imageUrl).toBeNull();
    expect(first.body.respond).toContain('still running');
    await held.received;

    const second = await workspace.client.post<Problem>(`/posts/${postId}/generate`);
    expect(second.status).toBe(409);
    expect(second.body.detail).toContain(`post-generate-${postId}`);

    held.release();
    const done = await eventually(async () => {
      const post = await workspace.client.get<Schemas['Post']>(`/posts/${postId}`);
      expect(post.body.imageUrl).not.toBeNull();
      return post.body;
    });
    expect(done.status).toBe('draft');
  });

  it('when the provider refuses the prompt, then it answers 422 with the reason and the post shows it', async () => {
    const postId = await newPost();
    stability.script([{ status: 403, name: 'content_moderation', errors: ['Your request was flagged by our content moderation system'] }]);
    const response = await workspace.client.post<Problem>(`/posts/${postId}/generate`);
    expect(response.status).toBe(422);
    expect(response.body.type).toBe('/problems/generation-failed');
    expect(response.body.detail).toContain('content_moderation');
    const post = await workspace.client.get<Schemas['Post']>(`/posts/${postId}`);
    expect(post.body.status).toBe('failed');
    expect(post.body.failureReason).toContain('content moderation system');
    const events = await app.api.services.orm.em.fork().find(WorkspaceEvent, { postId, type: 'post.failed' });
    expect(events).toHaveLength(1);
  });
});
