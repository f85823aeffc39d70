import { request } from 'node:http';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import type { TestWorkspace } from '../support/workspaces.ts';

let app: TestApp;
let workspace: TestWorkspace;

beforeAll(async () => {
  ({ app, workspace } = await startAppWithWorkspace());
});
afterAll(() => app?.stop());

/** The raw answer's headers, as Node's client reads them (fetch hides hop-by-hop ones such as Keep-Alive). */
function rawHeaders(path: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const sent = request(`${app.url}${path}`, { headers: { connection: 'keep-alive' } }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers }));
    });
    sent.on('error', reject).end();
  });
}

describe('X-Content-Type-Options', () => {
  it('when any kind of answer is sent (API, problem, docs, spec, health, dashboard, stored file), then it says nosniff', async () => {
    const key = `covers/${randomUUID()}.png`;
    await app.storage.put(key, Buffer.from('not sniffed'), 'image/png');
    const file = new URL(await app.storage.signedUrl(key));
    const answers = await Promise.all(
      [
        ['/api/v1/projects', workspace.key],
        ['/api/v1/projects', 'not-a-key'],
        ['/api/v1/nothing-here', workspace.key],
        ['/docs'],
        ['/docs/assets/init.js'],
        ['/openapi.yaml'],
        ['/health'],
        ['/ready'],
        ['/dashboard/'],
        [`${file.pathname}${file.search}`],
      ].map(async ([path, key]) => {
        const response = await fetch(`${app.url}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
        await response.arrayBuffer();
        return { path, status: response.status, nosniff: response.headers.get('x-content-type-options') };
      }),
    );
    expect(answers.map(({ path, status }) => [path, status])).toEqual([
      ['/api/v1/projects', 200],
      ['/api/v1/projects', 401],
      ['/api/v1/nothing-here', 404],
      ['/docs', 200],
      ['/docs/assets/init.js', 200],
      ['/openapi.yaml', 200],
      ['/health', 200],
      ['/ready', 200],
      ['/dashboard/', 200],
      [`${file.pathname}${file.search}`, 200],
    ]);
    expect(answers.filter((answer) => answer.nosniff !== 'nosniff')).toEqual([]);
  });
});

describe('Cache-Control on answers that carry a secret', () => {
  it('when a key is created, regenerated, or its creation replayed for the same Idempotency-Key, then the answer says no-store', async () => {
    const idempotencyKey = randomUUID();
    const created = await workspace.client.post<Schemas['CreateApiKeyResponse']>(
      '/api-keys',
      { name: 'CI' },
      { headers: { 'idempotency-key': idempotencyKey } },
    );
    const replayed = await workspace.client.post<Schemas['CreateApiKeyResponse']>(
      '/api-keys',
      { name: 'CI' },
      { headers: { 'idempotency-key': idempotencyKey } },
    );
    const regenerated = await workspace.client.post<Schemas['RegenerateApiKeyResponse']>(`/api-keys/${created.body.id}/regenerate`);
    expect([created, replayed, regenerated].map((answer) => [answer.status, typeof answer.body.key, answer.headers.get('cache-control')])).toEqual([
      [201, 'string', 'no-store'],
      [201, 'string', 'no-store'],
      [200, 'string', 'no-store'],
    ]);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
  });
});

describe('framing', () => {
  it.each(['/docs', '/dashboard/'])('when %s is fetched, then no other site may frame it', async (path) => {
    const page = await fetch(`${app.url}${path}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
  });
});

describe('keep-alive', () => {
  it('when a client keeps its connection open, then the api says it keeps idle connections 65 s by default (HTTP_KEEP_ALIVE_TIMEOUT_SECONDS)', async () => {
    const answer = await rawHeaders('/health');
    expect(answer.status).toBe(200);
    expect(answer.headers['keep-alive']).toBe('timeout=65');
  });
});
