import type { SocialConnection } from '../../data/entities/social-connection.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { findSocialConnection } from './find-social-connection.ts';

export function getSocialConnection(deps: Deps, caller: Caller, id: string): Promise<SocialConnection> {
  return findSocialConnection(deps.orm.em.fork(), caller.workspaceId, id);
}
