import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// `npm run migration:create` diffs the entities against a database its own migrations build. Straight after the
// last migration it must find nothing: anything it wrote would be a migration that repeats what the others did
// (or a difference between entities and migrations that nobody noticed).

const repository = fileURLToPath(new URL('../../', import.meta.url));
const migrationsDirectory = join(repository, 'src/adapters/database/migrations');

/** Every file of the migrations folder (the registry `index.ts` included) with its content. */
function folderContents(): Map<string, string> {
  return new Map(readdirSync(migrationsDirectory).map((name) => [name, readFileSync(join(migrationsDirectory, name), 'utf8')]));
}

/** Puts the folder back as it was: the command writes into the checkout, and a failing run must leave nothing. */
function restore(before: Map<string, string>): void {
  for (const name of readdirSync(migrationsDirectory)) {
    if (!before.has(name)) rmSync(join(migrationsDirectory, name));
  }
  const after = folderContents();
  for (const [name, content] of before) {
    if (after.get(name) !== content) writeFileSync(join(migrationsDirectory, name), content);
  }
}

describe('npm run migration:create', () => {
  it(
    'when run straight after the last migration, then it writes no migration and leaves the folder and its registry untouched',
    { timeout: 120_000 },
    async () => {
      const before = folderContents();
      try {
        // The command as the README's script runs it, in the checkout; it starts a PostgreSQL cluster of its own.
        const { stdout } = await promisify(execFile)(process.execPath, ['tools/create-migration.ts', 'create_migration_test_probe'], { cwd: repository });
        expect(stdout).toContain('nothing to do');
        expect(folderContents()).toEqual(before);
      } finally {
        restore(before);
      }
    },
  );
});
