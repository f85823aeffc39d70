import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { runAdmin } from '../support/admin-cli.ts';
import { apiClient } from '../support/http.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

function admin(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return runAdmin(app, args);
}

// Each command is a process of its own that starts Node and loads the service: seconds each, more on a busy machine.
describe('npm run admin', { timeout: 90_000 }, () => {
  it('when a workspace is created with --json, then stdout is one JSON object whose key works against the API', async () => {
    const { stdout } = await admin('workspace', 'create', '--name', 'Acme', '--plan', 'starter', '--json');
    const created = JSON.parse(stdout) as { workspaceId: string; apiKey: string };
    expect(created).toEqual({ workspaceId: expect.any(String), apiKey: expect.stringMatching(/^sk_[A-Za-z0-9_-]{43}$/) });

    const client = apiClient(app.url, created.apiKey);
    expect((await client.get<Schemas['Workspace']>('/workspace')).body).toMatchObject({ id: created.workspaceId, name: 'Acme', plan: 'starter' });

    const changed = JSON.parse((await admin('workspace', 'set-plan', '--id', created.workspaceId, '--plan', 'growth', '--json')).stdout);
    expect(changed).toEqual({ workspaceId: created.workspaceId, plan: 'growth' });
    expect((await client.get<Schemas['Workspace']>('/workspace')).body.plan).toBe('growth');
  });

  it('when a key is created with --scope read, then it only reads; deactivated, it answers 401, and activated again it works', async () => {
    const created = JSON.parse((await admin('workspace', 'create', '--name', 'Keys', '--plan', 'growth', '--json')).stdout);
    const issued = JSON.parse((await admin('api-key', 'create', '--workspace', created.workspaceId, '--name', 'ops', '--scope', 'read', '--json')).stdout);
    expect(issued.scope).toBe('read');
    const client = apiClient(app.url, issued.apiKey);
    expect((await client.get('/projects')).status).toBe(200);
    expect((await client.post('/projects', { name: 'Not with a read key' })).status).toBe(403);
    await admin('api-key', 'deactivate', '--id', issued.id);
    expect((await client.get('/projects')).status).toBe(401);
    await admin('api-key', 'activate', '--id', issued.id);
    expect((await client.get('/projects')).status).toBe(200);
  });

  it('when the arguments are wrong, then it exits non-zero naming the problem and prints nothing on stdout', async () => {
    type Failure = { code: number; stdout: string; stderr: string };
    const failureOf = (...args: string[]) =>
      admin(...args).then(
        () => expect.fail(`admin ${args.join(' ')} succeeded`),
        (error: Failure) => error,
      );
    // Side by side: each is a process of its own that starts in seconds.
    const [badPlan, badDate, badId, unknown] = await Promise.all([
      failureOf('workspace', 'create', '--name', 'X', '--plan', 'platinum', '--json'),
      admin('workspace', 'create', '--name', 'Dates', '--plan', 'growth', '--json').then(({ stdout }) =>
        failureOf(
          'api-key',
          'create',
          '--workspace',
          (JSON.parse(stdout) as { workspaceId: string }).workspaceId,
          '--name',
          'k',
          '--expires-at',
          '2030-13-01T00:00:00Z',
        ),
      ),
      failureOf('api-key', 'deactivate', '--id', 'not-a-uuid'),
      failureOf('workspace', 'explode'),
    ]);
    expect(badPlan).toMatchObject({ code: 1, stdout: '' });
    expect(badPlan.stderr).toContain('--plan must be one of starter, growth');
    expect(badDate).toMatchObject({ code: 1 });
    expect(badDate.stderr).toContain('--expires-at must be an RFC 3339 date-time');
    expect(badId).toMatchObject({ code: 1 });
    expect(badId.stderr).toContain('--id must be a UUID');
    expect(unknown).toMatchObject({ code: 2 });
    expect(unknown.stderr).toContain('Usage: npm run --silent admin');
  });
});
