import { OAuthAuthorization } from '../../adapters/database/entities/oauth-authorization.ts';
import { Workspace } from '../../adapters/database/entities/workspace.ts';
import type { SocialPlatform } from '../../adapters/social/social-connector.ts';
import type { Deps } from '../deps.ts';
import { stateHashOf } from './start-authorization.ts';

/** What the consent page tells the person: who asks, for what, and where they go back to afterwards. */
export type AuthorizationConsent = {
  workspaceName: string;
  platform: SocialPlatform;
  /** Who the connection would post as when not the person (a LinkedIn organisation's URN), else null. */
  author: string | null;
  /** The host the person is sent back to: the client's application, from the workspace's allow-list. */
  returnsTo: string;
  expiresAt: Date;
};

/**
 * The authorization a consent link names, for the page to show, or why there is none to show: a state we did not
 * hand out (or already used) is `invalid-state`, one past its ten minutes `expired`.
 */
export async function describeAuthorization(deps: Deps, state: string): Promise<AuthorizationConsent | 'invalid-state' | 'expired'> {
  const em = deps.orm.em.fork();
  const authorization = await em.findOne(OAuthAuthorization, { stateHash: stateHashOf(state) });
  if (!authorization) return 'invalid-state';
  if (authorization.expiresAt.getTime() <= Date.now()) return 'expired';
  const workspace = await em.findOneOrFail(Workspace, authorization.workspaceId, { fields: ['name'] });
  return {
    workspaceName: workspace.name,
    platform: authorization.platform,
    author: authorization.author ?? null,
    returnsTo: new URL(authorization.redirectUri).host,
    expiresAt: authorization.expiresAt,
  };
}
