import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../../src/api/schemas.ts';
import { startMastodonServer, type MastodonServer } from '../../fakes/mastodon-server.ts';
import { startAppWithWorkspace } from '../../support/app-with-workspace.ts';
import type { TestApp } from '../../support/test-app.ts';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces.ts';

// The MCP server at /mcp, through the SDK's own client over Streamable HTTP, against the real api and worker (on
// the Temporal dev server) publishing to a fake Mastodon.

let mastodon: MastodonServer;
let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;
let mastodonId: string;
let agent: Client;

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  return client;
}

/** A tool's structured content; the SDK client has checked it against the tool's output schema. */
async function call<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as T;
}

async function failure(client: Client, name: string, args: Record<string, unknown>): Promise<{ text: string; problem: Schemas['Problem'] }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError).toBe(true);
  const [summary, problem] = result.content as Array<{ type: 'text'; text: string }>;
  return { text: summary!.text, problem: JSON.parse(problem!.text) as Schemas['Problem'] };
}

async function generatedPost(title = 'Harbour lights'): Promise<string> {
  const created = await call<Schemas['CreatePostResponse']>(agent, 'create_post', { title, prompt: 'Boats at night', projectId, idempotencyKey: randomUUID() });
  const generated = await call<Schemas['GeneratePostResponse']>(agent, 'generate_post', { id: created.id, idempotencyKey: randomUUID() });
  expect(generated.post.status).toBe('draft');
  return created.id;
}

beforeAll(async () => {
  mastodon = await startMastodonServer();
  ({ app, workspace, projectId } = await startAppWithWorkspace({ env: { SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true', API_WAIT_SECONDS: '10' }, project: 'Agents' }));
  mastodonId = (
    await workspace.client.post<{ id: string }>('/social-connections', { platform: 'mastodon', instanceUrl: mastodon.url, accessToken: mastodon.token })
  ).body.id;
  agent = await connect(workspace.key);
});
afterAll(async () => {
  await agent?.close();
  await app?.stop();
  await mastodon?.close();
});

describe('MCP at /mcp', () => {
  it('when an agent lists the tools, then each has input and output schemas and annotations that say what it touches', async () => {
    const { tools } = await agent.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of [
      'list_platforms',
      'list_connections',
      'list_projects',
      'list_posts',
      'get_post',
      'create_post',
      'generate_post',
      'preview_publication',
      'publish_post',
      'cancel_publication',
      'explain_failed_target',
      'list_usage',
      'list_schedules',
    ])
      expect(byName.get(name)?.outputSchema?.type, name).toBe('object');
    expect(byName.get('list_posts')!.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(byName.get('publish_post')!.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true, idempotentHint: true });
    expect(byName.get('cancel_publication')!.annotations).toMatchObject({ destructiveHint: true });
    expect(byName.get('publish_post')!.inputSchema.required).toEqual(expect.arrayContaining(['id', 'connectionIds', 'idempotencyKey']));
  });

  it('when a post is created, generated, previewed and published to Mastodon, then it reads back Published with its attempts', async () => {
    const id = await generatedPost();
    const previews = await call<{ items: Schemas['PublishPreview'][] }>(agent, 'preview_publication', { id, connectionIds: [mastodonId] });
    expect(previews.items).toMatchObject([{ connectionId: mastodonId, platform: 'mastodon', text: 'Harbour lights', problems: [] }]);
    expect(mastodon.statuses.filter((status) => status.text === 'Harbour lights')).toHaveLength(0);

    const published = await call<{ items: Schemas['PublishTarget'][] }>(agent, 'publish_post', {
      id,
      connectionIds: [mastodonId],
      idempotencyKey: randomUUID(),
    });
    expect(published.items).toMatchObject([{ platform: 'mastodon', status: 'Published' }]);

    const read = await call<{ post: Schemas['Post']; publishTargets: Schemas['PublishTarget'][] }>(agent, 'get_post', { id });
    expect(read.post.status).toBe('published');
    expect(read.publishTargets).toMatchObject([{ status: 'Published', attempts: [{ outcome: 'published' }] }]);
    // The same JSON as REST's, but for the image link's signature, which is made for each answer (its expiry counts
    // from that second).
    const rest = (await workspace.client.get<Schemas['Post']>(`/posts/${id}`)).body;
    const unsigned = (post: Schemas['Post']) => ({ ...post, imageUrl: post.imageUrl?.split('?')[0] });
    expect(unsigned(read.post)).toEqual(unsigned(rest));
  });

  it('when publish_post is retried with the same key, then Mastodon receives one status and the retry gets the first answer', async () => {
    const id = await generatedPost('Once only');
    const key = randomUUID();
    const first = (await agent.callTool({ name: 'publish_post', arguments: { id, connectionIds: [mastodonId], idempotencyKey: key } })) as CallToolResult;
    const retry = (await agent.callTool({ name: 'publish_post', arguments: { id, connectionIds: [mastodonId], idempotencyKey: key } })) as CallToolResult;
    expect(retry.structuredContent).toEqual(first.structuredContent);
    expect((retry.content[0] as { text: string }).text).toContain('replayed');
    expect(mastodon.statuses.filter((status) => status.text === 'Once only')).toHaveLength(1);
    // One storage with REST: the same key and request over REST is the same answer, replayed.
    const overRest = await workspace.client.post(`/posts/${id}/publish-social`, { connectionIds: [mastodonId] }, { headers: { 'Idempotency-Key': key } });
    expect(overRest.headers.get('idempotent-replayed')).toBe('true');
    expect(overRest.body).toEqual((first.structuredContent as { items: unknown }).items);
    // The same key with another request is refused.
    const reused = await failure(agent, 'publish_post', {
      id,
      connectionIds: [mastodonId],
      scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
      idempotencyKey: key,
    });
    expect(reused.problem).toMatchObject({ status: 422, title: 'Idempotency key reused' });
  });

  it('when publish_post has no idempotency key, then it is refused with why', async () => {
    const id = await generatedPost();
    const { text, problem } = await failure(agent, 'publish_post', { id, connectionIds: [mastodonId] });
    expect(problem).toMatchObject({ status: 400, title: 'Validation failed', errors: [{ path: '/idempotencyKey' }] });
    expect(text).toMatch(/idempotencyKey.*publish twice/);
  });

  it('when a target is refused by Mastodon, then explain_failed_target gives the reason and the next step', async () => {
    const id = await generatedPost('Refused here');
    mastodon.script('statuses', [{ status: 422, error: 'Validation failed: Text character limit of 500 exceeded' }]);
    const published = await call<{ items: Schemas['PublishTarget'][] }>(agent, 'publish_post', {
      id,
      connectionIds: [mastodonId],
      idempotencyKey: randomUUID(),
    });
    expect(published.items).toMatchObject([{ status: 'Failed' }]);
    const explained = await call<{ failed: boolean; whatHappened: string; whatToDo: string }>(agent, 'explain_failed_target', {
      id,
      targetId: published.items[0]!.id,
    });
    expect(explained.failed).toBe(true);
    expect(explained.whatHappened).toContain('Text character limit of 500 exceeded');
    expect(explained.whatToDo).toContain('new idempotency key');
  });

  it('when a scheduled publication is cancelled, then its target ends Cancelled and nothing is sent', async () => {
    const id = await generatedPost('Not tonight');
    const scheduledAt = new Date(Date.now() + 3_600_000).toISOString();
    const planned = await call<{ items: Schemas['PublishTarget'][] }>(agent, 'publish_post', {
      id,
      connectionIds: [mastodonId],
      scheduledAt,
      idempotencyKey: randomUUID(),
    });
    expect(planned.items).toMatchObject([{ status: 'Scheduled' }]);
    const cancelled = await call<Schemas['UpdatePostResponse']>(agent, 'cancel_publication', { id, idempotencyKey: randomUUID() });
    expect(cancelled.status).toBe('draft');
    const read = await call<{ publishTargets: Schemas['PublishTarget'][] }>(agent, 'get_post', { id });
    expect(read.publishTargets).toMatchObject([{ status: 'Cancelled' }]);
  });

  it("when a tool's input is invalid, then the result is an error with the problem's title and the field", async () => {
    const { text, problem } = await failure(agent, 'get_post', { id: 'not-a-uuid' });
    expect(problem).toMatchObject({ status: 400, title: 'Validation failed', errors: [{ path: '/id' }] });
    expect(text).toContain('Validation failed: ');
    expect(text).toContain('/id must match format "uuid"');
  });

  it("when another workspace's post is asked for, then it is not found, as over REST", async () => {
    const id = await generatedPost();
    const stranger = await connect((await createTestWorkspace(app, 'growth')).key);
    const { problem } = await failure(stranger, 'get_post', { id });
    expect(problem).toMatchObject({ status: 404, title: 'Not found', detail: `Post ${id} was not found in this workspace.` });
    await failure(stranger, 'publish_post', { id, connectionIds: [mastodonId], idempotencyKey: randomUUID() });
    await stranger.close();
  });

  it("when a Starter workspace's key calls a Growth tool, then it is refused by the plan", async () => {
    const starter = await connect((await createTestWorkspace(app, 'starter')).key);
    const { problem } = await failure(starter, 'list_schedules', {});
    expect(problem).toMatchObject({ status: 403, title: 'Plan upgrade required', requiredPlan: 'growth' });
    expect(await call<{ items: unknown[] }>(agent, 'list_schedules', {})).toEqual({ items: [], hasMore: false });
    await starter.close();
  });

  it('when /mcp is called without a key, then it answers 401 with a Bearer challenge', async () => {
    const response = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await fetch(`${app.url}/mcp`, { headers: { authorization: `Bearer ${workspace.key}` } })).status).toBe(405);
  });
});
