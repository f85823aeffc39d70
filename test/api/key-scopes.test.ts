import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { specPath } from '../../src/api/app.ts';
import { operationScopes } from '../../src/api/operation-scopes.ts';
import type { Schemas } from '../../src/api/schemas.ts';
import { apiClient, type ApiClient } from '../support/http.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import type { TestWorkspace } from '../support/workspaces.ts';

type Problem = Schemas['Problem'];
type Created = Schemas['CreateApiKeyResponse'];

let app: TestApp;
let owner: TestWorkspace;
let projectId: string;

beforeAll(async () => {
  ({ app, workspace: owner, projectId } = await startAppWithWorkspace({ project: 'Scoped' }));
});
afterAll(() => app?.stop());

const inAWeek = () => new Date(Date.now() + 7 * 86_400_000).toISOString();
const inAMonth = () => new Date(Date.now() + 30 * 86_400_000).toISOString();

async function keyWith(body: Record<string, unknown>, by: ApiClient = owner.client): Promise<Created & { client: ApiClient }> {
  const created = await by.post<Created>('/api-keys', { name: 'scoped', ...body });
  if (created.status !== 201) throw new Error(`Could not create the key: ${created.status} ${JSON.stringify(created.body)}`);
  return { ...created.body, client: apiClient(app.url, created.body.key) };
}

/** The id of the owner's own key (the workspace's first, permanent and full). */
async function ownerKeyId(): Promise<string> {
  const listed = await owner.client.get<Schemas['ApiKeyListItem'][]>('/api-keys');
  return listed.body.find((key) => owner.key.startsWith(key.keyPrefix) && key.expiresAt === null && key.name !== 'scoped')!.id;
}

function expectScopeRefusal(response: { status: number; body: unknown }, requiredScope: string, keyScope: string): void {
  expect(response.status).toBe(403);
  expect(response.body).toMatchObject({ type: '/problems/insufficient-scope', requiredScope, keyScope });
}

describe('the table of operation scopes', () => {
  it('when openapi.yaml is read, then every operation has a scope, and the table names no operation the spec lacks but the dashboard one', () => {
    const spec = parse(readFileSync(specPath, 'utf8')) as { paths: Record<string, Record<string, { operationId?: string }>> };
    const operations = Object.values(spec.paths).flatMap((methods) =>
      Object.values(methods).flatMap((operation) => (operation.operationId ? [operation.operationId] : [])),
    );
    expect(operations.length).toBeGreaterThan(50);
    for (const operation of operations) expect(operationScopes, operation).toHaveProperty(operation);
    expect(Object.keys(operationScopes).filter((operation) => !operations.includes(operation))).toEqual(['startVideo']);
  });
});

describe('key scopes', () => {
  it('when a key is created without a scope, then it is full, as listed, and does everything', async () => {
    const key = await keyWith({});
    expect(key.scope).toBe('full');
    const listed = await owner.client.get<Schemas['ApiKeyListItem'][]>('/api-keys');
    expect(listed.body.find((item) => item.id === key.id)?.scope).toBe('full');
    expect((await key.client.call('PATCH', '/workspace', { body: { oauthRedirectUris: [] } })).status).toBe(200);
  });

  it('when a read key reads, then it is answered; when it changes anything, then 403 names the scope needed and its own, even for an invalid body', async () => {
    const { client, scope } = await keyWith({ scope: 'read' });
    expect(scope).toBe('read');
    expect((await client.get('/posts')).status).toBe(200);
    expect((await client.get(`/projects/${projectId}`)).status).toBe(200);
    expect((await client.get('/workspace')).status).toBe(200);
    expectScopeRefusal(await client.post('/projects', { name: 'Nope' }), 'publish', 'read');
    expectScopeRefusal(await client.post('/posts', { nonsense: true }), 'publish', 'read');
    expectScopeRefusal(await client.delete(`/projects/${projectId}`), 'publish', 'read');
    const refused = await client.get<Problem>('/api-keys');
    expectScopeRefusal(refused, 'full', 'read');
    expect(refused.body.detail).toBe("GET /api/v1/api-keys needs an API key with the `full` scope; this key's scope is `read`.");
  });

  it('when a read key changes the case of a path, which routing ignores, then it is refused all the same and nothing changes', async () => {
    const { client } = await keyWith({ scope: 'read' });
    expectScopeRefusal(await client.post('/Projects', { name: 'Shouted' }), 'publish', 'read');
    expectScopeRefusal(await client.delete(`/PROJECTS/${projectId}`), 'publish', 'read');
    expectScopeRefusal(await client.call('PATCH', '/Workspace', { body: { oauthRedirectUris: ['https://evil.example/cb'] } }), 'full', 'read');
    expect((await owner.client.get(`/projects/${projectId}`)).status).toBe(200);
    expect((await owner.client.get<Schemas['Workspace']>('/workspace')).body.oauthRedirectUris).not.toContain('https://evil.example/cb');
  });

  it('when a publish key makes and publishes content, then it may; when it touches settings, webhooks, connections or keys, then 403 asks for full', async () => {
    const { client } = await keyWith({ scope: 'publish' });
    const post = await client.post<{ id: string }>('/posts', { title: 'Scoped', prompt: 'A lighthouse', projectId });
    expect(post.status).toBe(201);
    expect((await client.put(`/posts/${post.body.id}`, { title: 'Scoped, renamed' })).status).toBe(200);
    expect((await client.post('/projects', { name: 'Published by a publish key' })).status).toBe(201);
    expectScopeRefusal(await client.call('PATCH', '/workspace', { body: { oauthRedirectUris: ['https://evil.example/cb'] } }), 'full', 'publish');
    expectScopeRefusal(await client.post('/webhooks', { url: 'https://example.com/hook', events: ['post.published'] }), 'full', 'publish');
    expectScopeRefusal(await client.post('/social-connections/authorizations', { platform: 'x' }), 'full', 'publish');
    expectScopeRefusal(await client.post('/api-keys', { name: 'escalate', scope: 'read' }), 'full', 'publish');
    expectScopeRefusal(await client.post(`/api-keys/${await ownerKeyId()}/regenerate`), 'full', 'publish');
    expectScopeRefusal(await client.delete(`/api-keys/${await ownerKeyId()}`), 'full', 'publish');
  });

  it("when a key that expires in a week creates keys, then only keys expiring no later than it; the owner's permanent key it can neither regenerate nor delete", async () => {
    const temporary = await keyWith({ expiresAt: inAWeek() });
    const permanent = await temporary.client.post<Problem>('/api-keys', { name: 'forever' });
    expect(permanent.status).toBe(403);
    expect(permanent.body.type).toBe('/problems/insufficient-scope');
    expect(permanent.body.detail).toMatch(/cannot create a key that never expires/);
    expect((await temporary.client.post<Problem>('/api-keys', { name: 'later', expiresAt: inAMonth() })).status).toBe(403);
    const shorter = await keyWith({ name: 'shorter', expiresAt: new Date(Date.now() + 86_400_000).toISOString(), scope: 'read' }, temporary.client);
    expect(shorter.scope).toBe('read');

    const ownerId = await ownerKeyId();
    expect((await temporary.client.post<Problem>(`/api-keys/${ownerId}/regenerate`)).body.type).toBe('/problems/insufficient-scope');
    expect((await temporary.client.delete<Problem>(`/api-keys/${ownerId}`)).body.type).toBe('/problems/insufficient-scope');
    expect((await owner.client.get('/projects')).status).toBe(200);

    // What it made, and itself, it may still rotate and revoke.
    expect((await temporary.client.post(`/api-keys/${shorter.id}/regenerate`)).status).toBe(200);
    expect((await temporary.client.delete(`/api-keys/${shorter.id}`)).status).toBe(204);
    const rotated = await temporary.client.post<Schemas['RegenerateApiKeyResponse']>(`/api-keys/${temporary.id}/regenerate`);
    expect(rotated.status).toBe(200);
    expect((await apiClient(app.url, rotated.body.key).get('/projects')).status).toBe(200);
  });

  it('when a publish key asks the dashboard to list or revoke keys, then 403 asks for full', async () => {
    const { key } = await keyWith({ scope: 'publish' });
    for (const [method, path] of [
      ['GET', '/dashboard/api/api-keys'],
      ['DELETE', `/dashboard/api/api-keys/${await ownerKeyId()}`],
    ] as const) {
      const response = await fetch(`${app.url}${path}`, { method, headers: { authorization: `Bearer ${key}` } });
      expectScopeRefusal({ status: response.status, body: await response.json() }, 'full', 'publish');
    }
  });
});

describe('key scopes over MCP', () => {
  async function toolResult(key: string, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const client = new Client({ name: 'scoped-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
    try {
      return (await client.callTool({ name, arguments: args })) as CallToolResult;
    } finally {
      await client.close();
    }
  }

  it('when a read key calls a reading tool, then it answers; a changing tool, then it is refused naming publish; a publish key may call it', async () => {
    const reader = await keyWith({ scope: 'read' });
    expect((await toolResult(reader.key, 'list_projects', {})).isError).toBeFalsy();
    const refused = await toolResult(reader.key, 'create_post', { title: 'Agent', prompt: 'Gulls', projectId });
    expect(refused.isError).toBe(true);
    const problem = JSON.parse((refused.content as Array<{ text: string }>)[1]!.text) as Problem;
    expect(problem).toMatchObject({ type: '/problems/insufficient-scope', requiredScope: 'publish', keyScope: 'read' });

    const publisher = await keyWith({ scope: 'publish' });
    expect((await toolResult(publisher.key, 'create_post', { title: 'Agent', prompt: 'Gulls', projectId })).isError).toBeFalsy();
  });

  it('when a read key lists the tools, then it is shown only the reading ones; a publish key also the changing ones', async () => {
    const listed = async (key: string) => {
      const client = new Client({ name: 'scoped-agent', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
      try {
        return (await client.listTools()).tools;
      } finally {
        await client.close();
      }
    };
    const forReader = await listed((await keyWith({ scope: 'read' })).key);
    expect(forReader.map((tool) => tool.name)).toContain('get_post');
    // The dry run reads, but may refresh a connection's tokens on the way: publish, as REST's dry run.
    expect(forReader.map((tool) => tool.name)).not.toContain('preview_publication');
    expect(forReader.filter((tool) => tool.annotations?.readOnlyHint !== true).map((tool) => tool.name)).toEqual([]);
    const forPublisher = (await listed((await keyWith({ scope: 'publish' })).key)).map((tool) => tool.name);
    expect(forPublisher).toEqual(expect.arrayContaining(['create_post', 'publish_post', 'preview_publication', 'get_post']));
  });
});
