import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyIdOf } from '../../../src/config/encryption-keys.ts';
import { createSecretBox, type SecretBox } from '../../../src/adapters/crypto/secret-box.ts';
import type { Database } from '../../../src/adapters/database/orm.ts';
import { resealSecrets, type ResealReport } from '../../../src/domain/secrets/reseal-secrets.ts';
import { createLogger } from '../../../src/logger.ts';
import { insertSealedRows, openSealedValues, readPlainAnswer, readSealedValues, sealV1, type SealedValue } from '../../support/sealed-rows.ts';
import { openTestDatabase } from '../../support/test-database.ts';

// ENCRYPTION_KEYS rotation at the database: values sealed with an older key are found and sealed again with the
// current one, in batches, without a lock, by any number of runs at once. Each test has a database of its own, so
// the counts are exactly its rows'.

const logger = createLogger({ level: 'silent', name: 'test' });
const columns = [
  'webhooks.secret_sealed',
  'social_connections.credentials_sealed',
  'social_connections.session_sealed',
  'oauth_authorizations.code_verifier_sealed',
  'idempotency_keys.response_body',
  'request_effects.secret_sealed',
];

async function withDatabase(test: (orm: Database) => Promise<void>): Promise<void> {
  const database = await openTestDatabase();
  try {
    await test(database.orm);
  } finally {
    await database.close();
  }
}

function boxes(keys: Buffer[]): { secrets: SecretBox; answers: SecretBox } {
  return { secrets: createSecretBox(keys, 'secrets'), answers: createSecretBox(keys, 'idempotent-answers') };
}

function reseal(orm: Database, keys: Buffer[], batchSize?: number): Promise<ResealReport> {
  const { secrets, answers } = boxes(keys);
  return resealSecrets({ orm, logger, secrets, idempotentAnswers: answers }, { batchSize });
}

function openAll(values: SealedValue[], keys: Buffer[]): string[] {
  return openSealedValues(values, boxes(keys));
}

/** Each column's figure, in the report's order (`columns`). */
function each(report: ResealReport, field: 'resealed' | 'changedMeanwhile' | 'unreadable' | 'remaining'): number[] {
  expect(report.columns.map((column) => `${column.table}.${column.column}`)).toEqual(columns);
  return report.columns.map((column) => column[field]);
}

/** Every column the entities seal: each property named `*Sealed`, as `table.column`. */
function sealedColumnsOfEntities(orm: Database): string[] {
  return [...orm.getMetadata().getAll().values()]
    .flatMap((meta) => meta.props.filter((property) => property.name.endsWith('Sealed')).map((property) => `${meta.tableName}.${property.fieldNames[0]}`))
    .sort();
}

describe('resealSecrets', () => {
  it('when the entities are read, then every column they seal (each property named *Sealed) is one the reseal covers', () =>
    withDatabase(async (orm) => {
      const sealed = sealedColumnsOfEntities(orm);
      expect(sealed).toContain('oauth_authorizations.code_verifier_sealed');
      const covered = (await reseal(orm, [randomBytes(32)])).columns.map((column) => `${column.table}.${column.column}`);
      expect(sealed.filter((column) => !covered.includes(column))).toEqual([]);
    }));

  it('when values sealed with A are resealed under [B, A], then every one names B, [B] alone opens them all, and a second run finds nothing', () =>
    withDatabase(async (orm) => {
      const [keyA, keyB] = [randomBytes(32), randomBytes(32)];
      const values = await insertSealedRows(orm, boxes([keyA]), 5);
      expect(openAll(values, [keyB, keyA])).toEqual(values.map((value) => value.plaintext));
      expect(() => openAll(values, [keyB])).toThrow(`sealed with key ${keyIdOf(keyA)}, which is not configured`);

      // Batches of 2: every column takes three.
      const report = await reseal(orm, [keyB, keyA], 2);
      expect(report.keyId).toBe(keyIdOf(keyB));
      expect(each(report, 'resealed')).toEqual([5, 5, 5, 5, 5, 5]);
      expect([...each(report, 'changedMeanwhile'), ...each(report, 'unreadable'), ...each(report, 'remaining')]).toEqual(Array(18).fill(0));

      const after = await readSealedValues(orm, values);
      for (const value of after) expect(value.stored.startsWith(`v2.${keyIdOf(keyB)}.`)).toBe(true);
      expect(openAll(after, [keyB])).toEqual(values.map((value) => value.plaintext));
      // An answer stored before answers were sealed is not a sealed value: left as it is.
      expect(await readPlainAnswer(orm)).toBe('{"id":"stored before answers were sealed"}');

      const again = await reseal(orm, [keyB, keyA]);
      expect([...each(again, 'resealed'), ...each(again, 'remaining')]).toEqual(Array(12).fill(0));
      expect(await readSealedValues(orm, values)).toEqual(after);
    }));

  it('when values are in the v1 format (no key id), then the reseal opens them with the configured key and moves them to v2', () =>
    withDatabase(async (orm) => {
      const keyA = randomBytes(32);
      const values = await insertSealedRows(orm, boxes([keyA]), 2);
      // As the service stored them before keys had ids (stored answers too were sealed with the key itself).
      const em = orm.em.fork();
      for (const value of values) await em.execute(`update ${value.table} set ${value.column} = ? where id = ?`, [sealV1(keyA, value.plaintext), value.id]);

      const report = await reseal(orm, [keyA]);
      expect(each(report, 'resealed')).toEqual([2, 2, 2, 2, 2, 2]);
      const after = await readSealedValues(orm, values);
      for (const value of after) expect(value.stored.startsWith(`v2.${keyIdOf(keyA)}.`)).toBe(true);
      expect(openAll(after, [keyA])).toEqual(values.map((value) => value.plaintext));
    }));

  it('when some values name a key no longer configured, then they are counted unreadable and remaining and kept, and the rest are resealed', () =>
    withDatabase(async (orm) => {
      const [lost, old, current] = [randomBytes(32), randomBytes(32), randomBytes(32)];
      const readable = await insertSealedRows(orm, boxes([old]), 3);
      const unreadable = await insertSealedRows(orm, boxes([lost]), 1);

      const report = await reseal(orm, [current, old]);
      expect(each(report, 'resealed')).toEqual([3, 3, 3, 3, 3, 3]);
      expect(each(report, 'unreadable')).toEqual([1, 1, 1, 1, 1, 1]);
      expect(each(report, 'remaining')).toEqual([1, 1, 1, 1, 1, 1]);
      expect(await readSealedValues(orm, unreadable)).toEqual(unreadable);
      expect(openAll(await readSealedValues(orm, readable), [current])).toEqual(readable.map((value) => value.plaintext));
    }));

  it('when two reseals run at once, then each value is written by exactly one of them and every value opens with the new key alone', () =>
    withDatabase(async (orm) => {
      const [keyA, keyB] = [randomBytes(32), randomBytes(32)];
      const values = await insertSealedRows(orm, boxes([keyA]), 40);

      const [first, second] = await Promise.all([reseal(orm, [keyB, keyA], 7), reseal(orm, [keyB, keyA], 7)]);
      expect(each(first, 'resealed').map((count, index) => count + each(second, 'resealed')[index]!)).toEqual([40, 40, 40, 40, 40, 40]);
      expect([...each(first, 'remaining'), ...each(second, 'remaining')]).toEqual(Array(12).fill(0));

      const after = await readSealedValues(orm, values);
      for (const value of after) expect(value.stored.startsWith(`v2.${keyIdOf(keyB)}.`)).toBe(true);
      expect(openAll(after, [keyB])).toEqual(values.map((value) => value.plaintext));
    }));
});
