import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { httpRequestsInFlight } from '../../src/adapters/metrics/api-metrics.ts';
import { eventually } from '../support/eventually.ts';
import { apiClient } from '../support/http.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';
import { createTestWorkspace } from '../support/workspaces.ts';

// The api behind one trusted proxy hop, as behind a load balancer: every request arrives from the same connection
// address (loopback here), and the client is the last X-Forwarded-For entry, the one the proxy appended. The failure
// budget is the default (60 per address per minute).

type Problem = Schemas['Problem'];

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ TRUST_PROXY_HOPS: '1', RATE_LIMIT_REQUESTS: '1000', RATE_LIMIT_WORKSPACE_REQUESTS: '1000' });
});
afterAll(() => app?.stop());

/** GET /projects as the proxy forwards it for `client` (whatever `claimed` entries the client sent itself). */
function getProjects(client: string, key: string, claimed: string[] = []) {
  return apiClient(app.url, key).get<Problem>('/projects', { headers: { 'x-forwarded-for': [...claimed, client].join(', ') } });
}

const randomKey = () => `sk_${randomBytes(32).toString('base64url')}`;

describe('failed authentication behind a trusted proxy', () => {
  it('when one client sends more random well-formed keys than the budget, then its refused keys answer 429, and valid keys from other clients and from its own address are served', async () => {
    const valid = await createTestWorkspace(app, 'growth');
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 65; attempt += 1) statuses.push((await getProjects('203.0.113.7', randomKey())).status);
    expect(statuses).toEqual([...Array(60).fill(401), ...Array(5).fill(429)]);
    const refused = await getProjects('203.0.113.7', randomKey());
    expect(refused.body.type).toBe('/problems/rate-limited');
    expect(refused.body.detail).toContain('failed authentications from this address (60 per 60 seconds)');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

    expect((await getProjects('198.51.100.4', valid.key)).status).toBe(200);
    // A key that verifies is never refused for others' failures, even from the address that failed.
    expect((await getProjects('203.0.113.7', valid.key)).status).toBe(200);
  });

  it('when a client writes X-Forwarded-For entries of its own, then only the one the trusted proxy appended names it', async () => {
    for (let attempt = 0; attempt < 60; attempt += 1) {
      expect((await getProjects('203.0.113.8', randomKey(), [`192.0.2.${attempt}`])).status).toBe(401);
    }
    expect((await getProjects('203.0.113.8', randomKey(), ['192.0.2.200'])).status).toBe(429);
  });
});

describe('valid requests in flight', () => {
  it('when more valid requests than the failure budget are in flight at once from one address, then none is refused', async () => {
    const valid = await createTestWorkspace(app, 'growth');
    const count = 80;
    // Every lookup waits behind a lock on api_keys, so all of them are in flight together.
    const lock = new pg.Client({ connectionString: app.config.database.url });
    await lock.connect();
    try {
      await lock.query('begin');
      await lock.query('lock table api_keys in access exclusive mode');
      let answered = 0;
      // The gauge is the process's, and other files' apps ran in this process before: what this test adds to it.
      const gauge = async () => (await httpRequestsInFlight.get()).values[0]?.value ?? 0;
      const before = await gauge();
      const inFlight = async () => (await gauge()) - before;
      const statuses = Promise.all(
        Array.from({ length: count }, () =>
          getProjects('203.0.113.9', valid.key).then((response) => {
            answered += 1;
            return response.status;
          }),
        ),
      );
      // Each has arrived: it waits for its lookup, or (before this was fixed) was refused on arrival.
      await eventually(async () => expect((await inFlight()) + answered).toBe(count), 4_000);
      await lock.query('commit');
      expect(await statuses).toEqual(Array(count).fill(200));
    } finally {
      await lock.end();
    }
  });
});
