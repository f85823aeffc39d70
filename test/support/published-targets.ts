import { expect } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import type { ApiClient } from './http.ts';

type Target = Schemas['PublishTarget'];

/**
 * Publishes the post (`body`: POST /posts/{id}/publish-social's) and answers its targets once every one has ended
 * (Published or Failed), through the API.
 */
export async function publishAndWait(client: ApiClient, postId: string, body: object): Promise<Target[]> {
  expect([200, 202]).toContain((await client.post(`/posts/${postId}/publish-social`, body)).status);
  const targets = async () => (await client.get<Target[]>(`/posts/${postId}/publish-targets`)).body;
  const ended = (target: Target) => target.status === 'Published' || target.status === 'Failed';
  await expect.poll(async () => (await targets()).every(ended), { timeout: 60_000, interval: 200 }).toBe(true);
  return targets();
}
