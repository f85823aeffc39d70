import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { openDatabase, type Database } from '../../src/adapters/database/orm.ts';
import { infrastructure } from './infrastructure.ts';

/**
 * A database of its own for one test file, cloned from the migrated template (fast: a file copy); with
 * `migrated: false`, an empty one, as an operator's first deploy finds it.
 */
export async function createTestDatabase({ migrated = true } = {}): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = infrastructure.postgresAdminUrl;
  const name = `test_${randomBytes(6).toString('hex')}`;
  await withClient(adminUrl, (client) => client.query(`create database ${name}${migrated ? ` template ${infrastructure.templateDatabase}` : ''}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => withClient(adminUrl, (client) => client.query(`drop database if exists ${name} with (force)`)).then(() => undefined),
  };
}

/** One connection of its own to `url` for `action`, closed after it. */
export async function withClient<T>(url: string, action: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await action(client);
  } finally {
    await client.end();
  }
}

/**
 * A database of its own for the test file, opened before its tests and dropped after them: `database.orm` (and its
 * `database.url`) while the tests run.
 */
export function useTestDatabase(): { readonly orm: Database; readonly url: string } {
  let opened: Awaited<ReturnType<typeof openTestDatabase>> | undefined;
  beforeAll(async () => {
    opened = await openTestDatabase();
  });
  afterAll(() => opened?.close());
  return {
    get orm() {
      if (!opened) throw new Error('the test database is open only while the tests run');
      return opened.orm;
    },
    get url() {
      if (!opened) throw new Error('the test database is open only while the tests run');
      return opened.url;
    },
  };
}

/** A database of its own, opened: for test files that work on the database directly. `close` also drops it. */
export async function openTestDatabase(): Promise<{ url: string; orm: Database; close: () => Promise<void> }> {
  const database = await createTestDatabase();
  const orm = await openDatabase(database.url);
  return {
    url: database.url,
    orm,
    async close() {
      await orm.close();
      await database.drop();
    },
  };
}
