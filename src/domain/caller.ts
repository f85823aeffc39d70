import type { ApiKeyScope } from '../adapters/database/entities/api-key.ts';
import type { Plan } from '../adapters/database/entities/workspace.ts';

/** Who is calling: derived from the API key, never from a header the client controls. `scope` is the key's. */
export type Caller = { workspaceId: string; plan: Plan; apiKeyId: string; scope: ApiKeyScope };
