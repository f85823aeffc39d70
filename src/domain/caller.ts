import type { Plan } from '../adapters/database/entities/workspace.ts';

/** Who is calling: derived from the API key, never from a header the client controls. */
export type Caller = { workspaceId: string; plan: Plan; apiKeyId: string };
