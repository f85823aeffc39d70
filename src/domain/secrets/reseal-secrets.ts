import type { SecretBox } from '../../adapters/crypto/secret-box.ts';
import type { Deps } from '../deps.ts';

// Moves every sealed value onto the current key (the first of ENCRYPTION_KEYS), so an older key can be dropped.
// It runs beside the service: each batch is read without a lock, and a row is written only if its sealed text is
// still the one that was read. A value the service (or a second reseal) rewrote meanwhile is left alone, since
// whoever rewrote it sealed it with their current key; the final count says whether anything is left. Every column
// an entity names `*Sealed` is listed here (a test reads the entities' metadata to hold that), and so are the stored
// idempotent answers, which keep their name from before they were sealed.

type SealedColumn = {
  table: string;
  column: string;
  box: 'secrets' | 'idempotentAnswers';
  /** Besides sealed values the column may hold text that was never sealed (answers stored before sealing). */
  alsoPlain?: boolean;
};

const sealedColumns: readonly SealedColumn[] = [
  { table: 'webhooks', column: 'secret_sealed', box: 'secrets' },
  { table: 'social_connections', column: 'credentials_sealed', box: 'secrets' },
  { table: 'social_connections', column: 'session_sealed', box: 'secrets' },
  { table: 'oauth_authorizations', column: 'code_verifier_sealed', box: 'secrets' },
  { table: 'idempotency_keys', column: 'response_body', box: 'idempotentAnswers', alsoPlain: true },
  { table: 'request_effects', column: 'secret_sealed', box: 'idempotentAnswers' },
];

type ResealCount = {
  table: string;
  column: string;
  /** Now sealed with the current key by this run. */
  resealed: number;
  /** Rewritten by someone else between this run's read and its write, so left as they wrote it. */
  changedMeanwhile: number;
  /** Sealed with a key that is no longer configured, or altered: each is logged with its row id. */
  unreadable: number;
  /** Still not sealed with the current key when this column was done (0 once the older keys can go). */
  remaining: number;
};

export type ResealReport = { keyId: string; columns: ResealCount[] };

const firstId = '00000000-0000-0000-0000-000000000000';

export async function resealSecrets(
  deps: Pick<Deps, 'orm' | 'logger' | 'secrets' | 'idempotentAnswers'>,
  options: { batchSize?: number } = {},
): Promise<ResealReport> {
  const batchSize = options.batchSize ?? 500;
  const columns: ResealCount[] = [];
  for (const sealed of sealedColumns) columns.push(await resealColumn(deps, sealed, deps[sealed.box], batchSize));
  return { keyId: deps.secrets.currentKeyId, columns };
}

async function resealColumn(
  deps: Pick<Deps, 'orm' | 'logger'>,
  { table, column, alsoPlain }: SealedColumn,
  box: SecretBox,
  batchSize: number,
): Promise<ResealCount> {
  const em = deps.orm.em.fork();
  // Table and column names come from the list above, never from input.
  const stale = `${column} is not null and not starts_with(${column}, ?)${alsoPlain ? ` and ${column} ~ '^v[0-9]+\\.'` : ''}`;
  const count: ResealCount = { table, column, resealed: 0, changedMeanwhile: 0, unreadable: 0, remaining: 0 };
  let after = firstId;
  for (;;) {
    const rows = await em.execute<Array<{ id: string; sealed: string }>>(
      `select id, ${column} as sealed from ${table} where id > ? and ${stale} order by id limit ?`,
      [after, box.currentPrefix, batchSize],
    );
    if (rows.length === 0) break;
    after = rows.at(-1)!.id;

    const changes: Array<{ id: string; old: string; new: string }> = [];
    for (const row of rows) {
      try {
        changes.push({ id: row.id, old: row.sealed, new: box.seal(box.open(row.sealed)) });
      } catch (error) {
        count.unreadable += 1;
        deps.logger.warn({ table, column, id: row.id, reason: (error as Error).message }, 'a sealed value could not be opened with any configured key');
      }
    }
    if (changes.length === 0) continue;
    const written = await em.execute<Array<{ id: string }>>(
      `update ${table} as t set ${column} = v.new
         from jsonb_to_recordset(?::jsonb) as v(id uuid, old text, new text)
        where t.id = v.id and t.${column} = v.old
       returning t.id`,
      [JSON.stringify(changes)],
    );
    count.resealed += written.length;
    count.changedMeanwhile += changes.length - written.length;
  }
  const [left] = await em.execute<Array<{ remaining: number }>>(`select count(*)::int as remaining from ${table} where ${stale}`, [box.currentPrefix]);
  count.remaining = left?.remaining ?? 0;
  deps.logger.info(count, 'resealed a column');
  return count;
}

export function describeResealReport(report: ResealReport): string {
  const lines = report.columns.map(
    (c) =>
      `  ${`${c.table}.${c.column}`.padEnd(38)} ${c.resealed} resealed, ${c.changedMeanwhile} changed meanwhile, ${c.unreadable} unreadable, ${c.remaining} remaining`,
  );
  const remaining = report.columns.reduce((sum, c) => sum + c.remaining, 0);
  const verdict =
    remaining === 0
      ? 'Every sealed value is sealed with the current key: the older keys can be dropped from ENCRYPTION_KEYS.'
      : `${remaining} values are not sealed with the current key: keep the older keys (an unreadable value needs the key that sealed it; a changed one, another run once every process seals with key ${report.keyId}).`;
  return [`Resealed with key ${report.keyId}:`, ...lines, verdict].join('\n');
}
