import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import type { TestWorkspace } from '../support/workspaces.ts';

// Requests broken below the level of a schema: bad percent-encoding, bodies that are not objects, odd JSON. Each
// answers a 4xx problem document, never a 500.

let app: TestApp;
let workspace: TestWorkspace;

beforeAll(async () => {
  ({ app, workspace } = await startAppWithWorkspace());
});
afterAll(() => app?.stop());

async function raw(path: string, init: RequestInit = {}): Promise<{ status: number; body: Schemas['Problem'] | string }> {
  const response = await fetch(`${app.url}/api/v1${path}`, { ...init, headers: { authorization: `Bearer ${workspace.key}`, ...init.headers } });
  const text = await response.text();
  return { status: response.status, body: (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text };
}

const json = { 'content-type': 'application/json' };
const unknownId = '00000000-0000-4000-8000-000000000000';

describe('requests broken below the schema', () => {
  it.each([
    ['a path with broken percent-encoding', '/projects/%E0%A4%A', {}],
    ['a query with broken percent-encoding', '/projects?status=%E0%A4%A', {}],
    ['a repeated query parameter', '/projects?page=1&page=2', {}],
    ['a JSON null body', '/projects', { method: 'POST', headers: json, body: 'null' }],
    ['a JSON array body', '/projects', { method: 'POST', headers: json, body: '[{"name":"x"}]' }],
    ['a JSON string body', '/projects', { method: 'POST', headers: json, body: '"x"' }],
    ['truncated JSON', '/projects', { method: 'POST', headers: json, body: '{"name":"x"' }],
    ['deeply nested JSON', '/projects', { method: 'POST', headers: json, body: `${'['.repeat(100_000)}${']'.repeat(100_000)}` }],
    ['an empty JSON body', '/projects', { method: 'POST', headers: json, body: '' }],
    ['JSON in another charset', '/projects', { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-16' }, body: '{"name":"x"}' }],
    ['a body of another type', '/projects', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'name=x' }],
    ['a lone surrogate escaped in JSON', '/projects', { method: 'POST', headers: json, body: '{"name":"\\ud800"}' }],
    // An operation without a request body accepts any JSON; its Idempotency-Key hashes the body.
    [
      'deeply nested JSON to an operation without a body, with an Idempotency-Key',
      `/posts/${unknownId}/publish`,
      { method: 'POST', headers: { ...json, 'idempotency-key': 'nested' }, body: `${'['.repeat(5000)}${']'.repeat(5000)}` },
    ],
    [
      'a multipart Content-Type with spaces around its boundary',
      `/projects/${unknownId}/cover`,
      { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary = X' }, body: '--X--\r\n' },
    ],
  ] as const)('when it is %s, then it answers a 4xx problem document', async (_what, path, init) => {
    const response = await raw(path, init);
    expect(response.status, JSON.stringify(response.body)).toBeGreaterThanOrEqual(400);
    expect(response.status, JSON.stringify(response.body)).toBeLessThan(500);
    expect((response.body as Schemas['Problem']).type).toMatch(/^\/problems\//);
  });
});
