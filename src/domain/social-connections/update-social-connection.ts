import type { SocialConnection } from '../../adapters/database/entities/social-connection.ts';
import type { ConnectionSettings } from '../../adapters/social/social-connector.ts';
import { platformNames } from '../../adapters/social/social-platforms.ts';
import { AppError } from '../../common/errors/app-error.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { findSocialConnection } from '../find-in-workspace.ts';
import { listedDestination } from './connection-destinations.ts';

// PATCH /social-connections/{id}: where the posts go (connection-destinations.ts) and how they are published (the
// settings its platform takes, its declaration's `settings`). Every part of the request is checked before anything
// is written, so a refused request changes nothing.

export type SocialConnectionUpdate = { destination?: string | undefined; settings?: ConnectionSettings | undefined };

export async function updateSocialConnection(deps: Deps, caller: Caller, id: string, update: SocialConnectionUpdate): Promise<SocialConnection> {
  const connection = await findSocialConnection(deps.orm.em.fork(), caller.workspaceId, id);
  const settings = update.settings ? checkedSettings(deps, connection, update.settings) : {};
  const destination = update.destination === undefined ? undefined : await listedDestination(deps, connection, update.destination);
  // One statement: both parts or neither, and the settings merged in the row, so a concurrent change of other
  // settings is kept.
  await deps.orm.em.fork().execute(
    `update social_connections
        set settings = coalesce(settings, '{}'::jsonb) || ?::jsonb,
            destination_id = coalesce(?, destination_id),
            destination_name = coalesce(?, destination_name)
      where id = ? and workspace_id = ?`,
    [JSON.stringify(settings), destination?.id ?? null, destination?.name ?? null, id, caller.workspaceId],
  );
  return findSocialConnection(deps.orm.em.fork(), caller.workspaceId, id);
}

/** The settings asked for, each one the platform takes, or a 400 naming those it does not. */
function checkedSettings(deps: Deps, connection: SocialConnection, settings: ConnectionSettings): ConnectionSettings {
  const taken: readonly string[] = deps.social[connection.platform].declaration.settings ?? [];
  const name = platformNames[connection.platform];
  const refused = Object.keys(settings).filter((key) => !taken.includes(key));
  if (refused.length === 0) return settings;
  const takes = taken.length > 0 ? `it takes ${taken.join(', ')}` : 'it takes none';
  const errors = refused.map((key) => ({ location: 'body' as const, path: `settings.${key}`, message: `is not a setting of ${name} connections (${takes})` }));
  throw new AppError('validation-failed', `settings.${refused[0]} ${errors[0]!.message}.`, { errors });
}
