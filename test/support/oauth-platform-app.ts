import { expect } from 'vitest';
import { startAppWithWorkspace } from './app-with-workspace.ts';
import { publishAndWait } from './published-targets.ts';
import type { TestApp } from './test-app.ts';
import type { TestWorkspace } from './workspaces.ts';

// What the API tests of one OAuth platform share: the service pointed at the platform's fake, a workspace whose
// registered redirect URI our callback sends people back to, a project, and posts published to one connection.

export const redirectUri = 'https://client.example/connected';

// The test whose post's answer never comes waits for the request to time out: short here, 30 s by default.
const lostAnswerSeconds = '5';

export type OAuthPlatformApp = { app: TestApp; workspace: TestWorkspace; projectId: string };

/** The service with `env` (the platform's fake's), and a workspace with `redirectUri` registered and a project. */
export async function startOAuthPlatformApp(env: Record<string, string>, project: string): Promise<OAuthPlatformApp> {
  const started = await startAppWithWorkspace({ env: { API_WAIT_SECONDS: '10', SOCIAL_REQUEST_TIMEOUT_SECONDS: lostAnswerSeconds, ...env }, project });
  expect((await started.workspace.client.call('PATCH', '/workspace', { body: { oauthRedirectUris: [redirectUri] } })).status).toBe(200);
  return started;
}

/** A post of the project with a generated image of the format; its id. */
export async function generatedPost({ workspace, projectId }: OAuthPlatformApp, title: string, format: '1:1' | '9:16' = '1:1'): Promise<string> {
  const id = (await workspace.client.post<{ id: string }>('/posts', { title, prompt: 'Boats at night', projectId })).body.id;
  expect((await workspace.client.post(`/posts/${id}/generate`, { format })).status).toBe(200);
  return id;
}

/** The post published to the one connection: its target once the publication has ended. */
export async function publishedTarget({ workspace }: OAuthPlatformApp, postId: string, connectionId: string) {
  return (await publishAndWait(workspace.client, postId, { connectionIds: [connectionId] }))[0]!;
}
