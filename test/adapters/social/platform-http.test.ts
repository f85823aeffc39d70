import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformHttp, type PlatformRequest } from '../../../src/adapters/social/platform-http.ts';
import { SocialOutcomeUnknownError, SocialUnavailableError } from '../../../src/adapters/social/social-connector.ts';
import { closedPort } from '../../fakes/closed-port.ts';
import { startHttpsServer, startSelfSignedHttpsServer, type HttpsServer } from '../../fakes/https-server.ts';
import { failureOf } from '../../support/failure-of.ts';

// Whether a request that creates a post was sent before it failed: sent and unanswered is an unknown outcome (the
// platform may have made the post), failed before sending is an outage like any other.

let server: HttpsServer;
let selfSigned: HttpsServer;
const http = createPlatformHttp('Example', { allowPrivateNetworks: true, timeoutMs: 500 });

/** Reads the whole request, then acts as `path` says: answers, hangs up, or never answers. */
async function handle(request: IncomingMessage, response: ServerResponse) {
  for await (const chunk of request as AsyncIterable<Buffer>) void chunk;
  if (request.url === '/reset') response.destroy();
  else if (request.url === '/silent') return;
  else response.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"1"}');
}

beforeAll(async () => {
  [server, selfSigned] = await Promise.all([
    startHttpsServer((request, response) => void handle(request, response)),
    startSelfSignedHttpsServer((request, response) => void handle(request, response)),
  ]);
});
afterAll(async () => {
  await server?.close();
  await selfSigned?.close();
});

const post = (url: string, creates: boolean): PlatformRequest => ({ method: 'POST', url: new URL(url), headers: {}, json: { text: 'Hello' }, creates });

describe('platform HTTP: sent or not sent', () => {
  it.each([
    ['the connection is reset after the request was sent', '/reset'],
    ['no answer comes within the timeout after the request was sent', '/silent'],
  ])('when %s, then a request that creates is an unknown outcome and any other an outage', async (_case, path) => {
    const unknown = await failureOf(http.request(post(`${server.url}${path}`, true)), SocialOutcomeUnknownError);
    expect(unknown.message).toMatch(/after the request was sent$/);
    const other = await failureOf(http.request(post(`${server.url}${path}`, false)), SocialUnavailableError);
    expect(other).not.toBeInstanceOf(SocialOutcomeUnknownError);
  });

  it('when the connection is refused, then a request that creates is an outage, not an unknown outcome', async () => {
    const error = await failureOf(http.request(post(`https://127.0.0.1:${await closedPort()}/`, true)), SocialUnavailableError);
    expect(error).not.toBeInstanceOf(SocialOutcomeUnknownError);
    expect(error.message).toContain('refused the connection');
  });

  it("when the server's certificate cannot be verified, then a request that creates is an outage, not an unknown outcome", async () => {
    const error = await failureOf(http.request(post(`${selfSigned.url}/`, true)), SocialUnavailableError);
    expect(error).not.toBeInstanceOf(SocialOutcomeUnknownError);
    expect(error.message).toContain('certificate');
  });

  it('when the server answers, then the answer comes back whether or not the request creates', async () => {
    expect((await http.request(post(`${server.url}/`, true))).body).toEqual({ id: '1' });
  });
});
