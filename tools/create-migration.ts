import { mkdtempSync, readFileSync, rmSync, chmodSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateDatabase } from '../src/adapters/database/migrate-database.ts';
import { openDatabase } from '../src/adapters/database/orm.ts';
import { startPostgresCluster } from '../src/local/embedded/postgres-cluster.ts';

// `npm run migration:create -- <name>`: writes a migration for the difference between the entities and the schema
// the existing migrations build (in a throwaway PostgreSQL cluster), and registers it in migrations/index.ts.
const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error('Usage: npm run migration:create -- <name in snake_case>');
  process.exit(2);
}

const workDir = mkdtempSync(join(tmpdir(), 'migration-'));
chmodSync(workDir, 0o755);
const cluster = await startPostgresCluster({ directory: join(workDir, 'postgres'), ephemeral: true });
try {
  const databaseUrl = await cluster.ensureDatabase('migrations');
  await migrateDatabase(databaseUrl);
  const orm = await openDatabase(databaseUrl);
  try {
    const result = await orm.migrator.create(undefined, false, false, name);
    if (!result.fileName) {
      console.log('The entities match the migrations: nothing to do.');
    } else {
      register(result.fileName.replace(/\.ts$/, ''));
      console.log(`Created src/adapters/database/migrations/${result.fileName} and registered it.`);
    }
  } finally {
    await orm.close();
  }
} finally {
  await cluster.stop();
  rmSync(workDir, { recursive: true, force: true });
}

function register(className: string): void {
  const registry = 'src/adapters/database/migrations/index.ts';
  const source = readFileSync(registry, 'utf8')
    .replace(/(\nexport const migrationsList)/, `import { ${className} } from './${className}.ts';\n$1`)
    // The list keeps one migration per line with a trailing comma (prettier's layout): the new one goes last.
    .replace(/,?\s*\];\s*$/, `,\n  ${className},\n];\n`);
  writeFileSync(registry, source);
}
