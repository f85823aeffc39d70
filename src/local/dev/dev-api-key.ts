import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiKey } from '../../adapters/database/entities/api-key.ts';
import type { Database } from '../../adapters/database/orm.ts';
import { hashApiKey } from '../../domain/api-keys/api-key-secret.ts';
import { createWorkspace } from '../../domain/workspaces/create-workspace.ts';
import { dataDir } from '../embedded/local-database.ts';

type DevKey = { workspaceId: string; apiKey: string };

/**
 * A Growth workspace and a working API key for the developer, kept under DATA_DIR so `npm run dev` prints the same
 * key every time (keys are stored hashed, so a key cannot be shown again once its plaintext is gone).
 */
export async function ensureDevApiKey(orm: Database): Promise<DevKey> {
  const file = join(dataDir(), 'dev-api-key.json');
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as DevKey;
    const stillValid = await orm.em.fork().count(ApiKey, { keyHash: hashApiKey(saved.apiKey), isActive: true, expiresAt: null });
    if (stillValid > 0) return saved;
  }
  const { workspace, apiKey } = await createWorkspace(orm, { name: 'Dev workspace', plan: 'growth', keyName: 'Dev key' });
  const devKey = { workspaceId: workspace.id, apiKey };
  writeFileSync(file, JSON.stringify(devKey, null, 2), { mode: 0o600 });
  return devKey;
}
