import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { startApiServer, type ApiServer } from '../../src/api/server.ts';
import { loadConfig } from '../../src/config.ts';
import { createWorkspace } from '../../src/domain/workspaces/create-workspace.ts';
import { startApiProcess } from '../support/api-process.ts';
import { eventually } from '../support/eventually.ts';
import { apiClient, type ApiResponse } from '../support/http.ts';
import { scrape } from '../support/prometheus-text.ts';
import { testConfigEnv } from '../support/test-config.ts';
import { createTestDatabase } from '../support/test-database.ts';

// Two api processes on one database, as two replicas behind a load balancer: the api in this process and
// `npm run api` as a real process (whose log and metrics are read). Every budget is counted in PostgreSQL, once.

type Problem = Schemas['Problem'];

const requestsPerKey = 6;
const failuresPerAddress = 4;

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let sql: pg.Client;
let inProcess: ApiServer;
let other: { process: ChildProcess; url: string; output: () => string };

beforeAll(async () => {
  database = await createTestDatabase();
  const env = { ...testConfigEnv(database.url), RATE_LIMIT_REQUESTS: String(requestsPerKey), RATE_LIMIT_AUTH_FAILURES: String(failuresPerAddress) };
  inProcess = await startApiServer(loadConfig(env), { validateResponses: true });
  other = await startApiProcess(env);
  sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
}, 120_000);
afterAll(async () => {
  if (other && other.process.exitCode === null) {
    other.process.kill('SIGTERM');
    await once(other.process, 'exit');
  }
  await sql?.end();
  await inProcess?.stop();
  await database?.drop();
});

async function newKey(): Promise<{ key: string; apiKeyId: string }> {
  const { workspace, apiKey } = await createWorkspace(inProcess.services.orm, { name: 'Shared', plan: 'growth' });
  const { rows } = await sql.query<{ id: string }>('select id from api_keys where workspace_id = $1', [workspace.id]);
  return { key: apiKey, apiKeyId: rows[0]!.id };
}

const apis = () => [inProcess.url, other.url];
const remainingOf = (response: ApiResponse) => Number(response.headers.get('ratelimit-remaining'));

describe('budgets shared by two api processes', () => {
  it('when a key spreads its requests over both apis, then they spend one budget and RateLimit-Remaining goes down across them', async () => {
    const { key } = await newKey();
    const responses = [];
    for (let index = 0; index < requestsPerKey; index += 1) responses.push(await apiClient(apis()[index % 2]!, key).get('/projects'));
    expect(responses.map((response) => response.status)).toEqual(Array(requestsPerKey).fill(200));
    expect(responses.map(remainingOf)).toEqual([5, 4, 3, 2, 1, 0]);
    for (const url of apis()) {
      const refused = await apiClient(url, key).get<Problem>('/projects');
      expect(refused.status).toBe(429);
      expect(refused.body.detail).toContain(`The rate limit of ${requestsPerKey} requests per 60 seconds for this API key is used up`);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });

  it('when failed authentications from one address are spread over both apis, then they spend one budget', async () => {
    const statuses = [];
    for (let attempt = 0; attempt <= failuresPerAddress; attempt += 1) {
      statuses.push((await apiClient(apis()[attempt % 2]!, `sk_${randomBytes(32).toString('base64url')}`).get('/projects')).status);
    }
    expect(statuses).toEqual([...Array(failuresPerAddress).fill(401), 429]);
  });
});

describe('when the shared store is unavailable', () => {
  it('then each api counts its budgets in its own memory, says so once in its log and in a metric, and shares them again once the store is back', async () => {
    const metricsUrl = await eventually(() => Promise.resolve(metricsUrlOf(other.output())));
    const failuresBefore = (await scrape(metricsUrl)).value('api_rate_limit_store_failures_total');
    const { key, apiKeyId } = await newKey();
    // The database still answers (keys are looked up), only the limits' table is gone.
    await sql.query('alter table rate_limits rename to rate_limits_away');
    try {
      const statuses = [];
      for (let index = 0; index <= requestsPerKey; index += 1) statuses.push((await apiClient(other.url, key).get('/projects')).status);
      expect(statuses).toEqual([...Array(requestsPerKey).fill(200), 429]);
      expect((await scrape(metricsUrl)).value('api_rate_limit_store_failures_total') - failuresBefore).toBeGreaterThanOrEqual(requestsPerKey + 1);
      expect(logLines(other.output(), 'rate-limit store unavailable')).toHaveLength(1);
    } finally {
      await sql.query('alter table rate_limits_away rename to rate_limits');
    }

    // The next request is counted in the store again, from the start of a window of its own.
    const { key: fresh, apiKeyId: freshId } = await newKey();
    const response = await apiClient(other.url, fresh).get('/projects');
    expect(response.status).toBe(200);
    expect(remainingOf(response)).toBe(requestsPerKey - 1);
    const { rows } = await sql.query<{ key: string; points: number }>('select key, points from rate_limits where key = any($1)', [
      [`key:${freshId}`, `key:${apiKeyId}`],
    ]);
    expect(rows).toEqual([{ key: `key:${freshId}`, points: 1 }]);
    await eventually(() => Promise.resolve(expect(logLines(other.output(), 'rate-limit store answers again')).toHaveLength(1)));
  });
});

function logLines(output: string, message: string): Array<{ level: number; msg: string }> {
  // Whole lines only: the output can end in the middle of one.
  return output
    .split('\n')
    .slice(0, -1)
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string })
    .filter((line) => line.msg.startsWith(message));
}

function metricsUrlOf(output: string): string {
  const listening = output.split('\n').find((line) => line.includes('"api listening"'));
  if (!listening) throw new Error('the api has not said where it listens yet');
  return (JSON.parse(listening) as { metricsUrl: string }).metricsUrl;
}
