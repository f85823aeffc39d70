import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { findFreePort } from '../../src/local/embedded/ports.ts';
import { startTemporalDevServer, type TemporalDevServer } from '../../src/local/embedded/temporal-dev-server.ts';
import { eventually } from '../support/eventually.ts';
import { apiClient } from '../support/http.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { createTestDatabase } from '../support/test-database.ts';
import { createTestWorkspace } from '../support/workspaces.ts';

// Everything stops between scheduling and the publication time: api, worker and the Temporal server (which keeps
// its state in a file, as the dev stack's does). When they come back, after the time has passed, the post is
// published: the durable timer survived.

const directory = mkdtempSync(join(tmpdir(), 'restart-test-'));
const stack: { temporal?: TemporalDevServer; app?: TestApp } = {};
afterAll(async () => {
  await stack.app?.stop();
  await stack.temporal?.stop();
  rmSync(directory, { recursive: true, force: true });
});

describe('a scheduled post when everything restarts', () => {
  it('when the service comes back after the publication time, then the post is published', { timeout: 90_000 }, async () => {
    const database = await createTestDatabase();
    const port = await findFreePort();
    const temporalFile = join(directory, 'temporal.sqlite');
    const settings = { TEMPORAL_ADDRESS: `127.0.0.1:${port}`, TEMPORAL_TASK_QUEUE: `restart-${randomBytes(4).toString('hex')}` };

    stack.temporal = await startTemporalDevServer({ headless: true, port, databaseFile: temporalFile });
    stack.app = await startTestApp(settings, { databaseUrl: database.url });
    const workspace = await createTestWorkspace(stack.app, 'growth');
    const projectId = (await workspace.client.post<{ id: string }>('/projects', { name: 'Restart' })).body.id;
    const postId = (await workspace.client.post<{ id: string }>('/posts', { title: 'Survivor', prompt: 'Phoenix', projectId })).body.id;
    const scheduledAt = new Date(Date.now() + 4000).toISOString();
    expect((await workspace.client.post(`/posts/${postId}/schedule`, { scheduledAt })).status).toBe(200);

    await stack.app.stop();
    await stack.temporal.stop();
    await new Promise((resolveWait) => setTimeout(resolveWait, 5000));

    stack.temporal = await startTemporalDevServer({ headless: true, port, databaseFile: temporalFile });
    stack.app = await startTestApp(settings, { databaseUrl: database.url });
    const client = apiClient(stack.app.url, workspace.key);
    const post = await eventually(async () => {
      const current = (await client.get<Schemas['Post']>(`/posts/${postId}`)).body;
      expect(current.status).toBe('published');
      return current;
    }, 60_000);
    expect(Date.parse(post.publishedAt!)).toBeGreaterThanOrEqual(Date.parse(scheduledAt) - 100);

    await stack.app.stop();
    stack.app = undefined;
    await database.drop();
  });
});
