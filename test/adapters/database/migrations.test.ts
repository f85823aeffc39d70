import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { migrationsList } from '../../../src/adapters/database/migrations/index.ts';
import { openDatabase } from '../../../src/adapters/database/orm.ts';
import { createTestDatabase } from '../../support/test-database.ts';

describe('migrations', () => {
  it('when listed, then the registry names every migration file in the folder, in order', () => {
    const files = readdirSync(new URL('../../../src/adapters/database/migrations/', import.meta.url))
      .filter((name) => /^Migration\d+_.+\.ts$/.test(name))
      .map((name) => name.replace(/\.ts$/, ''))
      .sort();
    expect(migrationsList.map((migration) => migration.name)).toEqual(files);
  });

  it('when every migration has run, then the schema matches the entities exactly', async () => {
    const database = await createTestDatabase();
    const orm = await openDatabase(database.url);
    try {
      const pending = await orm.schema.getUpdateSchemaSQL({ wrap: false });
      expect(pending.trim()).toBe('');
    } finally {
      await orm.close();
      await database.drop();
    }
  });
});
