import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import type { ReconcileReport } from '../../workflows/contracts/reconcile-schedules.ts';
import { openDatabase, type Database } from '../../src/adapters/database/orm.ts';
import { migrationsList } from '../../src/adapters/database/migrations/index.ts';
import { createWorkspace } from '../../src/domain/workspaces/create-workspace.ts';
import { runAdmin } from '../support/admin-cli.ts';
import { startApiProcess } from '../support/api-process.ts';
import { stopProcesses } from '../support/stop-processes.ts';
import { runMigrate } from '../support/migrate-process.ts';
import { apiClient, type ApiClient } from '../support/http.ts';
import { requestFrom, startLoadBalancer, type LoadBalancer } from '../support/load-balancer.ts';
import { testConfigEnv } from '../support/test-config.ts';
import { createTestDatabase } from '../support/test-database.ts';
import { startWorkerProcess } from '../support/worker-process.ts';

// The service as operators run it: one PostgreSQL, one Temporal server, two api and two worker processes started from
// the same environment, and a load balancer on loopback in front of the apis (trusted as one proxy hop). Whatever
// replica a request reaches, the service answers as one.

const requestsPerKey = 24;
const authFailuresPerAddress = 5;

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let orm: Database;
let env: Record<string, string>;
let migrations: Array<{ code: number | null; output: string }>;
const processes: ChildProcess[] = [];
let apis: Array<{ url: string; client: (key: string) => ApiClient }>;
let workerOutputs: Array<() => string>;
let balancer: LoadBalancer;
let brokenScheduleId: string;

beforeAll(async () => {
  database = await createTestDatabase({ migrated: false });
  env = {
    ...testConfigEnv(database.url),
    TRUST_PROXY_HOPS: '1',
    RATE_LIMIT_REQUESTS: String(requestsPerKey),
    RATE_LIMIT_AUTH_FAILURES: String(authFailuresPerAddress),
  };
  // Two deploys' migration jobs at once, on a database that has none of the schema yet.
  migrations = await Promise.all([runMigrate(database.url), runMigrate(database.url)]);
  orm = await openDatabase(database.url);

  // A schedule that Temporal refuses (a cron its parser rejects, as a row written by an older release could hold):
  // reconciling it fails, and that must not keep any worker from starting.
  const { workspace } = await createWorkspace(orm, { name: 'Broken schedule', plan: 'growth' });
  brokenScheduleId = (
    await orm.em.execute<Array<{ id: string }>>(
      `insert into schedules (id, workspace_id, name, cron_expression, is_active, created_at, updated_at)
       values (gen_random_uuid(), ?, 'Broken', 'every blue moon', true, now() - interval '1 day', now() - interval '1 day') returning id`,
      [workspace.id],
    )
  )[0]!.id;

  const [first, second] = await Promise.all([startApiProcess(env), startApiProcess(env)]);
  for (const api of [first, second]) processes.push(api.process);
  apis = [first, second].map((api) => ({ url: api.url, client: (key: string) => apiClient(api.url, key) }));
  const workers = await Promise.all([startWorkerProcess(env), startWorkerProcess(env)]);
  for (const worker of workers) processes.push(worker.process);
  workerOutputs = workers.map((worker) => worker.output);
  balancer = await startLoadBalancer(apis.map((api) => api.url));
}, 240_000);

afterAll(async () => {
  await balancer?.close();
  await stopProcesses(processes);
  await orm?.close();
  await database?.drop();
});

async function growthKey(name: string): Promise<string> {
  return (await createWorkspace(orm, { name, plan: 'growth' })).apiKey;
}

function wellFormedUnknownKey(): string {
  return `sk_${randomBytes(32).toString('base64url')}`;
}

describe('migrations', () => {
  it('when two migration jobs start at once on an empty database, then both succeed and each migration is applied once', async () => {
    expect(migrations.map((migration) => migration.code)).toEqual([0, 0]);
    const applied = await orm.em.execute<Array<{ name: string; times: number }>>('select name, count(*)::int as times from mikro_orm_migrations group by name');
    expect(applied).toHaveLength(migrationsList.length);
    expect(applied.every((row) => row.times === 1)).toBe(true);
    // One of them did the work; the other waited for its lock and found nothing left to do.
    expect(migrations.filter((migration) => /Applied \d+ migration/.test(migration.output))).toHaveLength(1);
    expect(migrations.filter((migration) => migration.output.includes('up to date'))).toHaveLength(1);
  });
});

describe('request budgets', () => {
  it("when a key's requests alternate between the two apis, then they spend one budget and the next request is refused by either", async () => {
    const key = await growthKey('Budget');
    const remaining: number[] = [];
    for (let index = 0; index < requestsPerKey; index += 1) {
      const response = await apis[index % 2]!.client(key).get('/projects');
      expect(response.status).toBe(200);
      remaining.push(Number(response.headers.get('ratelimit-remaining')));
    }
    expect(remaining).toEqual(Array.from({ length: requestsPerKey }, (_, index) => requestsPerKey - 1 - index));
    for (const api of apis) {
      const refused = await api.client(key).get('/projects');
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ type: '/problems/rate-limited', status: 429 });
    }
  });

  it('when one client floods the load balancer with unknown keys, then the guesser is throttled and valid keys (its own too) are still served', async () => {
    const key = await growthKey('Beside a guesser');
    const guesses = [];
    for (let index = 0; index < authFailuresPerAddress * 3; index += 1) {
      guesses.push(requestFrom('127.0.0.2', `${balancer.url}/api/v1/projects`, { headers: { authorization: `Bearer ${wellFormedUnknownKey()}` } }));
    }
    const statuses = (await Promise.all(guesses)).map((response) => response.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(authFailuresPerAddress);
    expect(statuses.filter((status) => status === 429)).toHaveLength(authFailuresPerAddress * 2);

    const beside = await requestFrom('127.0.0.3', `${balancer.url}/api/v1/projects`, { headers: { authorization: `Bearer ${key}` } });
    expect(beside.status).toBe(200);
    const fromTheGuessersAddress = await requestFrom('127.0.0.2', `${balancer.url}/api/v1/projects`, { headers: { authorization: `Bearer ${key}` } });
    expect(fromTheGuessersAddress.status).toBe(200);
    // Another address's failures are its own: a mistyped key elsewhere is a plain 401.
    const mistyped = await requestFrom('127.0.0.3', `${balancer.url}/api/v1/projects`, { headers: { authorization: `Bearer ${wellFormedUnknownKey()}` } });
    expect(mistyped.status).toBe(401);
  });
});

describe('one truth in the database', () => {
  it('when one Idempotency-Key is sent to both apis at once, then one project is created', async () => {
    const key = await growthKey('Idempotent');
    const idempotencyKey = randomBytes(16).toString('hex');
    const answers = await Promise.all(
      apis.map((api) => api.client(key).post<{ id: string }>('/projects', { name: 'Once' }, { headers: { 'idempotency-key': idempotencyKey } })),
    );
    const created = answers.filter((answer) => answer.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    // The other either replays the first answer or, while the first still runs, says so (409 with Retry-After).
    for (const answer of answers) expect([201, 409]).toContain(answer.status);
    expect(new Set(created.map((answer) => answer.body.id)).size).toBe(1);
    const listed = await apis[0]!.client(key).get<Array<{ name: string }>>('/projects');
    expect(listed.body.filter((project) => project.name === 'Once')).toHaveLength(1);
  });

  it('when a key is deleted through one api, then the other refuses it at once', async () => {
    const owner = await growthKey('Revoking');
    const made = await apis[0]!.client(owner).post<{ id: string; key: string }>('/api-keys', { name: 'short-lived' });
    expect(made.status).toBe(201);
    expect((await apis[1]!.client(made.body.key).get('/projects')).status).toBe(200);
    expect((await apis[0]!.client(owner).delete(`/api-keys/${made.body.id}`)).status).toBe(204);
    expect((await apis[1]!.client(made.body.key).get('/projects')).status).toBe(401);
  });
});

describe('workers', () => {
  it('when a schedule is broken in Temporal, then both workers still start and run work', async () => {
    for (const output of workerOutputs) expect(output()).toContain('"state":"RUNNING"');
    const key = await growthKey('Work');
    const client = apiClient(balancer.url, key);
    const project = (await client.post<{ id: string }>('/projects', { name: 'Served' })).body.id;
    const post = (await client.post<{ id: string }>('/posts', { title: 'Across replicas', prompt: 'Two of everything', projectId: project })).body.id;
    const generated = await client.post<{ post: { imageUrl: string | null } }>(`/posts/${post}/generate`, {});
    expect(generated.status).toBe(200);
    expect(generated.body.post.imageUrl).toEqual(expect.any(String));
    // Temporal does refuse it (reconciling reports it), and the row is still there, untouched, for its owner to fix.
    const { stdout } = await runAdmin({ config: loadConfig(env) }, ['schedules', 'reconcile', '--json']).catch((failure: { stdout: string }) => failure);
    expect((JSON.parse(stdout) as ReconcileReport).failed.map((failure) => failure.scheduleId)).toEqual([brokenScheduleId]);
    const [row] = await orm.em.execute<Array<{ cron_expression: string }>>('select cron_expression from schedules where id = ?', [brokenScheduleId]);
    expect(row?.cron_expression).toBe('every blue moon');
    // No api or worker died over it.
    for (const child of processes) expect(child.exitCode).toBeNull();
  });
});
