import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startTestApp, type TestApp } from '../support/test-app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

describe('GET /health and GET /ready', () => {
  it('when the process is up and its dependencies answer, then both answer 200', async () => {
    const health = await fetch(`${app.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });

    const ready = await fetch(`${app.url}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', temporal: 'ok', storage: 'ok', imageProvider: 'ok' } });
  });

  it('when a dependency fails, then /ready answers 503 naming it, without what it said', async () => {
    // A file where the storage directory should be: every read of the store fails with ENOTDIR.
    const directory = app.config.storage.directory;
    rmSync(directory, { recursive: true, force: true });
    writeFileSync(directory, 'not a directory');
    try {
      const ready = await fetch(`${app.url}/ready`);
      expect(ready.status).toBe(503);
      expect(Number(ready.headers.get('retry-after'))).toBeGreaterThan(0);
      const body = await ready.text();
      expect(JSON.parse(body)).toMatchObject({ type: '/problems/service-unavailable', detail: 'Not ready: storage not answering.' });
      expect(body).not.toContain('ENOTDIR');
      expect(body).not.toContain(directory);
    } finally {
      rmSync(directory, { force: true });
      mkdirSync(directory);
    }
    expect((await fetch(`${app.url}/ready`)).status).toBe(200);
  });
});

describe('GET /openapi.yaml and GET /docs', () => {
  it('when fetched, then the spec is served as YAML without authentication', async () => {
    const response = await fetch(`${app.url}/openapi.yaml`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('yaml');
    const spec = parse(await response.text()) as { openapi: string; info: { title: string } };
    expect(spec.info.title).toBe('Content Creation Service API');
  });

  it('when the docs page is fetched, then it and everything it loads come from this server', async () => {
    const page = await fetch(`${app.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await page.text();
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(assets).toEqual(['/docs/assets/swagger-ui.css', '/docs/assets/swagger-ui-bundle.js', '/docs/assets/init.js']);
    for (const asset of assets) expect((await fetch(`${app.url}${asset}`)).status).toBe(200);
    const init = await (await fetch(`${app.url}/docs/assets/init.js`)).text();
    expect(init).toContain("url: '/openapi.yaml'");
    expect(init).toContain('validatorUrl: null');
  });
});
