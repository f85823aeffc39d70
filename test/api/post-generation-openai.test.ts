import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { allPostFormats, postFormats } from '../../src/adapters/artwork/post-formats.ts';
import { startOpenAIImagesServer, type OpenAIImagesServer } from '../fakes/openai-images-server.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import { fetchImage } from '../support/images.ts';
import type { TestApp } from '../support/test-app.ts';
import type { TestWorkspace } from '../support/workspaces.ts';

// Generation through the api and the worker with an OpenAI-compatible images API configured (a loopback server
// checking OpenAI's description): each format's image has its exact pixels whatever size the model drew; a refused
// prompt fails the post with OpenAI's words; a refused key shows in /ready until a generation succeeds again.

type Problem = Schemas['Problem'];
type Generated = Schemas['GeneratePostResponse'];

let openai: OpenAIImagesServer;
let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;

beforeAll(async () => {
  openai = await startOpenAIImagesServer();
  ({ app, workspace, projectId } = await startAppWithWorkspace({
    env: {
      IMAGE_PROVIDER: 'openai',
      OPENAI_IMAGES_URL: openai.url,
      OPENAI_IMAGES_API_KEY: openai.apiKey,
      OPENAI_IMAGES_MODEL: 'dall-e-3',
      // The fake's image URLs are on loopback.
      OPENAI_IMAGES_ALLOW_PRIVATE_NETWORKS: 'true',
      API_WAIT_SECONDS: '8',
    },
    project: 'OpenAI',
  }));
});
afterAll(async () => {
  await app?.stop();
  await openai?.close();
});

async function newPost(): Promise<string> {
  return (await workspace.client.post<{ id: string }>('/posts', { title: 'Storm', prompt: 'A lighthouse in a storm', projectId })).body.id;
}

async function readiness(): Promise<unknown> {
  return (await fetch(`${app.url}/ready`)).json();
}

describe('POST /posts/{id}/generate with an OpenAI-compatible images API', () => {
  it.each(allPostFormats)('when the format is %s, then the stored image has the format’s exact pixels and respond names the model', async (format) => {
    const postId = await newPost();
    const response = await workspace.client.post<Generated>(`/posts/${postId}/generate`, { format });
    expect(response.status).toBe(200);
    expect(await fetchImage(response.body.post.imageUrl!)).toMatchObject({ format: 'png', ...postFormats[format] });
    expect(response.body.respond).toContain('with the OpenAI-compatible image API (dall-e-3 at ');
    expect(response.body.respond).toContain('prompt revised to "A vivid, detailed picture: A lighthouse in a storm"');
  });

  it('when the prompt is refused for content policy, then it answers 422 with the reason and the post shows it', async () => {
    const postId = await newPost();
    openai.script([{ kind: 'content-policy', code: 'content_policy_violation' }]);
    const response = await workspace.client.post<Problem>(`/posts/${postId}/generate`);
    expect(response.status).toBe(422);
    expect(response.body.detail).toContain('refused to draw this prompt: its content policy does not allow it');
    const post = await workspace.client.get<Schemas['Post']>(`/posts/${postId}`);
    expect(post.body.status).toBe('failed');
  });

  it('when the key is refused, then /ready names it (still 200) until a generation succeeds', async () => {
    expect(await readiness()).toMatchObject({ status: 'ready', checks: { imageProvider: 'ok' } });
    openai.script([{ status: 401, code: 'invalid_api_key', message: 'Incorrect API key provided: sk-pr*****abcd.' }]);
    const refused = await workspace.client.post<Problem>(`/posts/${await newPost()}/generate`);
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toContain('rejected the configured API key');
    const ready = await fetch(`${app.url}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', checks: { database: 'ok', imageProvider: 'key_rejected' } });

    const generated = await workspace.client.post<Generated>(`/posts/${await newPost()}/generate`);
    expect(generated.status).toBe(200);
    expect(await readiness()).toMatchObject({ checks: { imageProvider: 'ok' } });
  });
});
