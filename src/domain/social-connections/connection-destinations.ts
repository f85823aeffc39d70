import type { SocialConnection } from '../../adapters/database/entities/social-connection.ts';
import { SocialRejectedError, type Destination } from '../../adapters/social/social-connector.ts';
import { platformNames } from '../../adapters/social/social-platforms.ts';
import { AppError } from '../../common/errors/app-error.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { findSocialConnection } from '../find-in-workspace.ts';
import { freshCredentials } from './fresh-credentials.ts';
import { platformUnreachable } from './platform-unreachable.ts';

// Where a connection's posts go, on a platform whose account has several places (Pinterest's boards, Facebook's
// Pages) or audiences (TikTok's privacy levels): listed from the platform as it is now, and one chosen
// (update-social-connection.ts), which the platform must list. The choice is kept in its own columns, not in the
// sealed credentials, so it never overwrites tokens a refresh is storing at the same moment.

export type ConnectionDestinations = { what: 'board' | 'page' | 'privacy level'; data: Destination[] };

/** The places the connection's account may post to, as its platform lists them now. */
export async function listConnectionDestinations(deps: Deps, caller: Caller, id: string): Promise<ConnectionDestinations> {
  const connection = await findSocialConnection(deps.orm.em.fork(), caller.workspaceId, id);
  const what = destinationKindOf(deps, connection);
  return { what, data: await destinationsFrom(deps, connection) };
}

/** One of the places the connection's platform lists now, by its id, or a 400 naming `destination`. */
export async function listedDestination(deps: Deps, connection: SocialConnection, destinationId: string): Promise<Destination> {
  const what = destinationKindOf(deps, connection);
  const chosen = (await destinationsFrom(deps, connection)).find((destination) => destination.id === destinationId);
  if (!chosen) {
    const message = `is not a ${what} the ${platformNames[connection.platform]} account ${connection.accountName} may post to (GET /social-connections/${connection.id}/destinations lists them)`;
    throw new AppError('validation-failed', `destination ${message}.`, { errors: [{ location: 'body', path: 'destination', message }] });
  }
  return chosen;
}

function destinationKindOf(deps: Deps, connection: SocialConnection): ConnectionDestinations['what'] {
  const what = deps.social[connection.platform].declaration.destination;
  if (!what) {
    const message = `${platformNames[connection.platform]} connections post to the account itself; they have no destinations to choose`;
    throw new AppError('validation-failed', `${message}.`, { errors: [{ location: 'path', path: 'id', message }] });
  }
  return what;
}

async function destinationsFrom(deps: Deps, connection: SocialConnection): Promise<Destination[]> {
  const name = platformNames[connection.platform];
  if (connection.status === 'needs_reauth') {
    throw new AppError('conflict', `The ${name} connection ${connection.accountName} needs to be connected again before its destinations can be read.`);
  }
  try {
    const { credentials } = await freshCredentials(deps, connection);
    const connector = deps.social[connection.platform];
    if (!connector.destinations) throw new Error(`the ${name} connector declares a destination but cannot list them`);
    return await connector.destinations(credentials);
  } catch (error) {
    if (error instanceof SocialRejectedError) throw new AppError('conflict', `${name} refused to list the account's destinations: ${error.reason}`);
    throw platformUnreachable(name, "the account's destinations", error);
  }
}
