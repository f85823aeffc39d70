import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Project } from '../../../src/adapters/database/entities/project.ts';
import { migrateDatabase } from '../../../src/adapters/database/migrate-database.ts';
import { startPostgresCluster, type PostgresCluster } from '../../../src/local/embedded/postgres-cluster.ts';
import { eventually } from '../../support/eventually.ts';
import type { ApiResponse } from '../../support/http.ts';
import { startTestApp, type TestApp } from '../../support/test-app.ts';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces.ts';
import { answerWithin } from '../../support/answer-within.ts';

// PostgreSQL stops (a fast shutdown: sessions terminated, then nothing listens) while clients create and read, then
// comes back on the same port. The api answers only 2xx or 503 with Retry-After, never 500 and never hangs; it
// serves again once the database is back, without a restart; and every create it acknowledged (201) is still there.
// A cluster of this file's own: stopping the run's shared one would break every other test.

// Generous: README's "When a dependency is down" promises that no request hangs (given up on within 20 s); this
// only tells "answered" from "hung".
const answerBoundMs = 20_000;
const clients = 6;

const directory = mkdtempSync(join(tmpdir(), 'database-outage-'));
let cluster: PostgresCluster;
let databaseRunning = false;
let app: TestApp;
let workspace: TestWorkspace;

beforeAll(async () => {
  // The server runs as the `postgres` user when we are root: it must be able to enter this directory.
  chmodSync(directory, 0o755);
  cluster = await startPostgresCluster({ directory: join(directory, 'postgres') });
  databaseRunning = true;
  const databaseUrl = await cluster.ensureDatabase('content_service');
  await migrateDatabase(databaseUrl);
  app = await startTestApp({ RATE_LIMIT_REQUESTS: '1000000' }, { databaseUrl });
  workspace = await createTestWorkspace(app, 'growth');
});
afterAll(async () => {
  try {
    await app?.stop();
  } finally {
    if (databaseRunning) await cluster.stop();
    rmSync(directory, { recursive: true, force: true });
  }
});

type Answer = { request: string; status: number | 'no answer'; type?: string; retryAfter: string | null };

describe('the api while PostgreSQL is down', () => {
  it(
    'when PostgreSQL stops under load and comes back, then only 2xx or 503 are answered, it serves again without a restart and no acknowledged create is lost',
    { timeout: 180_000 },
    async () => {
      const answers: Answer[] = [];
      const created: string[] = [];
      let running = true;
      const send = async (request: string, call: () => Promise<ApiResponse>) => {
        const response = await answerWithin(call(), answerBoundMs);
        answers.push({
          request,
          status: response?.status ?? 'no answer',
          type: (response?.body as { type?: string } | undefined)?.type,
          retryAfter: response?.headers.get('retry-after') ?? null,
        });
        return response;
      };
      // Each client creates a project and reads it back, then the list, over and over (bounded, and paced so an
      // outage's fast refusals do not turn into a busy loop).
      const load = Array.from({ length: clients }, async (_, client) => {
        for (let round = 0; running && round < 2000; round += 1) {
          const response = await send('POST /projects', () => workspace.client.post<{ id: string }>('/projects', { name: `Load ${client}-${round}` }));
          if (response?.status === 201) {
            const id = (response.body as { id: string }).id;
            created.push(id);
            await send('GET /projects/{id}', () => workspace.client.get(`/projects/${id}`));
          }
          await send('GET /projects', () => workspace.client.get('/projects?pageSize=10'));
          await new Promise((resolveWait) => setTimeout(resolveWait, 20));
        }
      });

      try {
        await eventually(() => Promise.resolve(expect(created.length).toBeGreaterThan(clients * 3)));
        await cluster.stop();
        databaseRunning = false;
        const refused = () => answers.filter((answer) => answer.status !== 200 && answer.status !== 201).length;
        await eventually(() => Promise.resolve(expect(refused()).toBeGreaterThan(clients * 10)));
        const createdBeforeRestart = created.length;

        cluster = await startPostgresCluster({ directory: join(directory, 'postgres'), port: cluster.port });
        databaseRunning = true;
        // The same api process and pool: connections the outage broke were let go, new ones serve.
        await eventually(() => Promise.resolve(expect(created.length).toBeGreaterThan(createdBeforeRestart + clients)), 60_000);
      } finally {
        running = false;
        await Promise.all(load);
      }

      const unexpected = answers.filter((answer) => answer.status === 'no answer' || (answer.status !== 503 && (answer.status < 200 || answer.status > 299)));
      expect(unexpected).toEqual([]);
      const unavailable = answers.filter((answer) => answer.status === 503);
      expect(unavailable.length).toBeGreaterThan(0);
      expect(unavailable.every((answer) => Number(answer.retryAfter) > 0 && answer.type === '/problems/service-unavailable')).toBe(true);

      const em = app.api.services.orm.em.fork();
      expect(await em.count(Project, { id: { $in: created } })).toBe(created.length);
      // Nothing is in flight now: every connection the outage broke went back to the pool, none is held for ever.
      const pool = (await app.api.services.orm.em.getConnection().getNativeClient()) as unknown as { totalCount: number; idleCount: number };
      expect(pool.idleCount).toBe(pool.totalCount);
    },
  );
});
