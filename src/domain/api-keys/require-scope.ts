import type { ApiKeyScope } from '../../adapters/database/entities/api-key.ts';
import { AppError } from '../../common/errors/app-error.ts';
import type { Caller } from '../caller.ts';

const rank: Record<ApiKeyScope, number> = { read: 0, publish: 1, full: 2 };

/** Whether a key with the scope `held` may do what `needed` allows: each scope includes the ones before it. */
export function scopeCovers(held: ApiKeyScope, needed: ApiKeyScope): boolean {
  return rank[held] >= rank[needed];
}

/** 403 `insufficient-scope` naming the scope needed and the key's, unless the caller's key covers `needed`. */
export function requireScope(caller: Caller, needed: ApiKeyScope, what: string): void {
  if (scopeCovers(caller.scope, needed)) return;
  throw new AppError('insufficient-scope', `${what} needs an API key with the \`${needed}\` scope; this key's scope is \`${caller.scope}\`.`, {
    requiredScope: needed,
    keyScope: caller.scope,
  });
}
