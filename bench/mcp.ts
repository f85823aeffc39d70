import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { BenchStack } from './bench-stack.ts';
import { settings } from './settings.ts';
import { percentile, timed } from './stats.ts';
import { compared, heading, ratioAtMost, type Row } from './table.ts';

// An MCP get_post (one tools/call over Streamable HTTP, through the SDK's client, connected once as an agent is)
// next to REST's GET /posts/{id}, in turns, sample by sample. Stateless MCP makes a server and a transport for each
// request: this is what that costs beside the tool's work (the post and its publish targets) and the JSON-RPC framing.

/**
 * The SDK's client transport hands one AbortSignal to every request it sends, and Node's fetch keeps a listener on that
 * signal for each request until the request is garbage-collected: adding one costs more the more are waiting (a tenth
 * of a millisecond a call after a few hundred calls). That is the client's cost, not the server's, which is what this
 * compares with REST (whose calls pass no signal), so the bench's client sends its requests without it.
 */
const withoutSharedSignal: typeof fetch = (url, init) => fetch(url, { ...init, signal: null });

export async function benchMcp(stack: BenchStack): Promise<Row[]> {
  const project = await stack.call<{ id: string }>('POST', '/projects', { name: 'MCP bench' });
  const post = await stack.call<{ id: string }>('POST', '/posts', { title: 'Harbour lights', prompt: 'Boats at night', projectId: project.body.id });
  const id = post.body.id;
  const agent = new Client({ name: 'bench', version: '1.0.0' });
  await agent.connect(
    new StreamableHTTPClientTransport(new URL(`${stack.api.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${stack.apiKey}` } },
      fetch: withoutSharedSignal,
    }),
  );
  try {
    const getPost = async () => {
      const result = await agent.callTool({ name: 'get_post', arguments: { id } });
      if (result.isError) throw new Error(`get_post failed: ${JSON.stringify(result.content)}`);
    };
    const runs = { rest: [] as number[], mcp: [] as number[] };
    for (let warmUp = 0; warmUp < 100; warmUp += 1) {
      await stack.call('GET', `/posts/${id}`);
      await getPost();
    }
    for (let sample = 0; sample < settings.samples * 5; sample += 1) {
      runs.rest.push((await timed(() => stack.call('GET', `/posts/${id}`))).ms);
      runs.mcp.push((await timed(getPost)).ms);
    }
    const floor = { value: percentile(runs.rest, 50), name: 'REST GET /posts/{id}' };
    return [
      heading('mcp'),
      compared(`MCP tools/call get_post p50 (${runs.mcp.length} samples in turns)`, percentile(runs.mcp, 50), 'ms', floor, ratioAtMost(1.3)),
    ];
  } finally {
    await agent.close();
  }
}
