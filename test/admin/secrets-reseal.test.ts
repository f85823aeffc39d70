import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.ts';
import { keyIdOf } from '../../src/config/encryption-keys.ts';
import { createSecretBox, type SecretBox } from '../../src/adapters/crypto/secret-box.ts';
import type { Database } from '../../src/adapters/database/orm.ts';
import type { ResealReport } from '../../src/domain/secrets/reseal-secrets.ts';
import { runAdmin } from '../support/admin-cli.ts';
import { insertSealedRows, openSealedValues, readSealedValues, type SealedValue } from '../support/sealed-rows.ts';
import { openTestDatabase } from '../support/test-database.ts';
import { testConfig } from '../support/test-config.ts';

// `npm run admin -- secrets reseal` as an operator runs it during a key rotation, against a real database holding
// webhook secrets, social credentials and sessions, and stored idempotent answers sealed with the old key. Each
// test has a database of its own, so the counts are exactly its rows'.

type Admin = (keys: Buffer[], ...args: string[]) => Promise<{ stdout: string; stderr: string }>;

async function withDatabase(test: (orm: Database, reseal: Admin) => Promise<void>): Promise<void> {
  const database = await openTestDatabase();
  const config: Config = testConfig(database.url);
  // The admin CLI with these keys as ENCRYPTION_KEYS (and no ENCRYPTION_KEY).
  const reseal: Admin = (keys, ...args) =>
    runAdmin({ config }, ['secrets', 'reseal', ...args], { ENCRYPTION_KEYS: keys.map((key) => key.toString('base64')).join(','), ENCRYPTION_KEY: undefined });
  try {
    await test(database.orm, reseal);
  } finally {
    await database.close();
    rmSync(config.storage.directory, { recursive: true, force: true });
  }
}

function boxes(keys: Buffer[]): { secrets: SecretBox; answers: SecretBox } {
  return { secrets: createSecretBox(keys, 'secrets'), answers: createSecretBox(keys, 'idempotent-answers') };
}

function openAll(values: SealedValue[], keys: Buffer[]): string[] {
  return openSealedValues(values, boxes(keys));
}

const resealed = (report: ResealReport) => report.columns.map((column) => column.resealed);

describe('npm run admin -- secrets reseal', () => {
  it('when ENCRYPTION_KEYS puts a new key first, then every sealed value moves to it and the new key alone opens them all', () =>
    withDatabase(async (orm, reseal) => {
      const [keyA, keyB] = [randomBytes(32), randomBytes(32)];
      const values = await insertSealedRows(orm, boxes([keyA]), 3);

      const report = JSON.parse((await reseal([keyB, keyA], '--json')).stdout) as ResealReport;
      expect(report).toEqual({
        keyId: keyIdOf(keyB),
        columns: [
          { table: 'webhooks', column: 'secret_sealed', resealed: 3, changedMeanwhile: 0, unreadable: 0, remaining: 0 },
          { table: 'social_connections', column: 'credentials_sealed', resealed: 3, changedMeanwhile: 0, unreadable: 0, remaining: 0 },
          { table: 'social_connections', column: 'session_sealed', resealed: 3, changedMeanwhile: 0, unreadable: 0, remaining: 0 },
          { table: 'oauth_authorizations', column: 'code_verifier_sealed', resealed: 3, changedMeanwhile: 0, unreadable: 0, remaining: 0 },
          { table: 'idempotency_keys', column: 'response_body', resealed: 3, changedMeanwhile: 0, unreadable: 0, remaining: 0 },
          { table: 'request_effects', column: 'secret_sealed', resealed: 3, changedMeanwhile: 0, unreadable: 0, remaining: 0 },
        ],
      });
      const after = await readSealedValues(orm, values);
      for (const value of after) expect(value.stored.startsWith(`v2.${keyIdOf(keyB)}.`)).toBe(true);
      expect(openAll(after, [keyB])).toEqual(values.map((value) => value.plaintext));

      // Run again, as an operator checking before dropping the old key: nothing to do, and it says so.
      const { stdout } = await reseal([keyB]);
      expect(stdout).toContain(`Resealed with key ${keyIdOf(keyB)}:`);
      expect(stdout).toContain('Every sealed value is sealed with the current key: the older keys can be dropped from ENCRYPTION_KEYS.');
    }));

  it('when two reseals run at once, then both succeed, each value is written once, and every value opens with the new key alone', () =>
    withDatabase(async (orm, reseal) => {
      const [keyA, keyB] = [randomBytes(32), randomBytes(32)];
      const values = await insertSealedRows(orm, boxes([keyA]), 30);
      const [first, second] = (await Promise.all([reseal([keyB, keyA], '--json'), reseal([keyB, keyA], '--json')])).map(
        ({ stdout }) => JSON.parse(stdout) as ResealReport,
      );
      expect(resealed(first!).map((count, index) => count + resealed(second!)[index]!)).toEqual([30, 30, 30, 30, 30, 30]);

      const after = await readSealedValues(orm, values);
      for (const value of after) expect(value.stored.startsWith(`v2.${keyIdOf(keyB)}.`)).toBe(true);
      expect(openAll(after, [keyB])).toEqual(values.map((value) => value.plaintext));
    }));

  it('when the key that sealed values is left out, then it exits 1, reports them unreadable and remaining, and prints no secret', () =>
    withDatabase(async (orm, reseal) => {
      const values = await insertSealedRows(orm, boxes([randomBytes(32)]), 2);
      const failure = await reseal([randomBytes(32)]).then(
        () => expect.fail('expected exit code 1'),
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      expect(failure.code).toBe(1);
      const { stdout, stderr } = failure;
      expect(stdout).toMatch(/webhooks\.secret_sealed +0 resealed, 0 changed meanwhile, 2 unreadable, 2 remaining/);
      expect(stdout).toContain('12 values are not sealed with the current key: keep the older keys');
      expect(stderr).toContain('which is not configured');
      for (const value of values) expect(stdout + stderr).not.toContain(value.plaintext);
      expect(await readSealedValues(orm, values)).toEqual(values);
    }));
});
