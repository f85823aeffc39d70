import type { ApiKeyScope } from '../../adapters/database/entities/api-key.ts';
import type { Plan } from '../../adapters/database/entities/workspace.ts';
import type { Database } from '../../adapters/database/orm.ts';
import { AppError } from '../../common/errors/app-error.ts';
import type { Caller } from '../caller.ts';
import { apiKeyPattern, hashApiKey } from './api-key-secret.ts';

type KeyRow = { id: string; workspace_id: string; plan: Plan; scope: ApiKeyScope; is_active: boolean; expires_at: string | null };

/** The API key of an Authorization header, checked for shape only (no lookup): 401 when missing or malformed. */
export function bearerKeyOf(authorization: string | undefined): string {
  if (!authorization) throw unauthorized('Missing API key: send the header `Authorization: Bearer <API key>`.');
  const match = /^Bearer +(\S+)$/i.exec(authorization.trim());
  if (!match?.[1]) throw unauthorized('Malformed Authorization header: expected `Bearer <API key>`.');
  const key = match[1];
  if (!apiKeyPattern.test(key)) throw unauthorized('Malformed API key: keys are `sk_` followed by 43 characters.');
  return key;
}

/**
 * Resolves the caller from a well-formed key. One indexed query per request and no cache, so a deleted,
 * regenerated or deactivated key is refused from the next request on.
 */
export async function authenticateApiKey(orm: Database, key: string): Promise<Caller> {
  const [row] = await orm.em.execute<KeyRow[]>(
    `select k.id, k.workspace_id, w.plan, k.scope, k.is_active, k.expires_at
       from api_keys k join workspaces w on w.id = k.workspace_id
      where k.key_hash = ?`,
    [hashApiKey(key)],
  );
  if (!row) throw unauthorized('Unknown API key.');
  if (!row.is_active) throw unauthorized('This API key is inactive.');
  if (row.expires_at && new Date(row.expires_at).getTime() <= Date.now()) {
    throw unauthorized(`This API key expired at ${new Date(row.expires_at).toISOString()}.`);
  }
  return { workspaceId: row.workspace_id, plan: row.plan, apiKeyId: row.id, scope: row.scope };
}

function unauthorized(detail: string): AppError {
  return new AppError('unauthorized', detail);
}
