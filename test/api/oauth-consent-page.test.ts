import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { startXServer, type XServer } from '../fakes/x-server.ts';
import { chromiumArgs, chromiumPath } from '../infra/chromium.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { createTestWorkspace, type TestWorkspace } from '../support/workspaces.ts';
import { xEnv } from '../support/x-connections.ts';

// Our consent page in a real browser: the link a client hands to a person names the workspace and the platform, and
// its Continue takes them through the platform (the fake X) and our callback back to the client, connected.

let x: XServer;
let app: TestApp;
let browser: Browser;
let workspace: TestWorkspace;
// The client's application, where the person lands at the end.
let client: Server;
let redirectUri: string;

beforeAll(async () => {
  x = await startXServer();
  app = await startTestApp(xEnv(x));
  workspace = await createTestWorkspace(app, 'growth', 'Harbour & Sons Studio');
  client = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Client</title><p>Back at the client</p>'),
  );
  client.listen(0, '127.0.0.1');
  await once(client, 'listening');
  redirectUri = `http://127.0.0.1:${(client.address() as AddressInfo).port}/connected`;
  expect((await workspace.client.call('PATCH', '/workspace', { body: { oauthRedirectUris: [redirectUri] } })).status).toBe(200);
  browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await x?.close();
  await new Promise((closed) => client?.close(closed));
});

describe('the OAuth consent page in Chromium', () => {
  it(
    'when the person opens the authorizationUrl, then they see the workspace and platform, and Continue brings them back to the client connected',
    { timeout: 60_000 },
    async () => {
      const created = await workspace.client.post<Schemas['OAuthAuthorization']>('/social-connections/authorizations', { platform: 'x', redirectUri });
      expect(created.status).toBe(201);
      // The fake X serves HTTPS with the tests' own certificate authority, which Chromium does not know.
      const context = await browser.newContext({ ignoreHTTPSErrors: true });
      const page = await context.newPage();
      // Console errors (a CSP refusal shows up there) and uncaught exceptions.
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));
      try {
        await page.goto(created.body.authorizationUrl);
        expect(await page.locator('#workspace').textContent()).toBe('Harbour & Sons Studio');
        expect(await page.locator('#platform').textContent()).toBe('X');
        expect(await page.locator('body').textContent()).toContain('is asking to post as you on X');

        await Promise.all([page.waitForURL((url) => url.toString().startsWith(redirectUri)), page.getByRole('button', { name: 'Continue to X' }).click()]);
        const back = new URL(page.url());
        expect(back.searchParams.get('state')).toBe(created.body.state);
        const connectionId = back.searchParams.get('connectionId');
        expect(connectionId).toBeTruthy();
        const connection = await workspace.client.get<Schemas['SocialConnection']>(`/social-connections/${connectionId}`);
        expect(connection.body).toMatchObject({ platform: 'x', accountName: '@alice_x', status: 'active' });
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    },
  );
});
