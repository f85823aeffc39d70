import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationsList } from '../../../src/adapters/database/migrations/index.ts';
import { openDatabase } from '../../../src/adapters/database/orm.ts';
import { startApiProcess } from '../../support/api-process.ts';
import { testConfigEnv } from '../../support/test-config.ts';
import { createTestDatabase } from '../../support/test-database.ts';

// Only `npm run migrate` migrates; the api, the worker and the admin CLI check the schema at start-up. Behind: they
// refuse to start, saying what to run. Ahead (a rolling deploy migrated before this release's replicas stopped):
// they start.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

/** Runs the migrations table through `sql`, on the test's database. */
async function onMigrationsTable(sql: string, parameters: unknown[]): Promise<void> {
  const orm = await openDatabase(database.url);
  try {
    await orm.em.getConnection().execute(sql, parameters);
  } finally {
    await orm.close();
  }
}

/** `script` as a process against the test's database, to its exit. */
async function runToExit(args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...testConfigEnv(database.url), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output };
}

const latest = migrationsList.at(-1)!.name;

describe('the schema version at start-up', () => {
  it(
    'when the database lacks the latest migration, then the api, the worker and the admin CLI exit non-zero naming `npm run migrate`, and nothing migrates',
    { timeout: 60_000 },
    async () => {
      await onMigrationsTable('delete from mikro_orm_migrations where name = ?', [latest]);
      try {
        for (const args of [['src/api/main.ts'], ['worker/main.ts'], ['src/admin/main.ts', 'workspace', 'list']]) {
          const { code, output } = await runToExit(args);
          expect(code, args[0]).not.toBe(0);
          expect(output, args[0]).toContain('Run `npm run migrate`');
          expect(output, args[0]).toContain(latest);
        }
        const orm = await openDatabase(database.url);
        const [row] = await orm.em
          .getConnection()
          .execute<Array<{ count: number }>>('select count(*)::int as count from mikro_orm_migrations where name = ?', [latest]);
        await orm.close();
        expect(row?.count).toBe(0);
      } finally {
        await onMigrationsTable('insert into mikro_orm_migrations (name) values (?)', [latest]);
      }
    },
  );

  it('when the database has a migration this code does not know (a newer release migrated first), then the api starts', { timeout: 60_000 }, async () => {
    await onMigrationsTable('insert into mikro_orm_migrations (name) values (?)', ['Migration20991231000000_from_a_newer_release']);
    const api = await startApiProcess(testConfigEnv(database.url));
    try {
      expect((await fetch(`${api.url}/health`)).status).toBe(200);
    } finally {
      api.process.kill('SIGTERM');
      await once(api.process, 'exit');
    }
  });
});
