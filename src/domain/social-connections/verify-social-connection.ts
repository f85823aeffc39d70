import { SocialConnection } from '../../adapters/database/entities/social-connection.ts';
import { SocialRejectedError } from '../../adapters/social/social-connector.ts';
import { platformUnreachable } from './platform-unreachable.ts';
import { AppError } from '../../common/errors/app-error.ts';
import { inTemporal } from '../../adapters/temporal/workflow-gateway.ts';
import { handOverEvent } from '../events/hand-over-event.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { startKeepAlive } from './complete-authorization.ts';
import { findSocialConnection } from '../find-in-workspace.ts';
import { freshCredentials } from './fresh-credentials.ts';
import { isOAuthCredentials, markNeedsReauth } from './refresh-connection.ts';

/**
 * Checks the connection with its platform now: an OAuth token about to expire is refreshed first, then the platform
 * says whose account the credentials open. A refusal (of the refresh or of the account) marks the connection
 * `needs_reauth` with the platform's words and sends `connection.expired`; an answer makes a token connection
 * active again. An OAuth connection that needs the person again stays so: its refresh token is gone, whatever its
 * last access token still opens. The platform unreachable answers 503 and changes nothing. The event is handed to
 * its delivery once the change has committed; Temporal not taking it leaves it to the event sweep, and the answer
 * is the connection all the same, since the change is made. An active OAuth connection's keep-alive workflow is
 * started should it not run (Temporal was down when the connection was made).
 */
export async function verifySocialConnection(deps: Deps, caller: Caller, id: string): Promise<SocialConnection> {
  const connection = await findSocialConnection(deps.orm.em.fork(), caller.workspaceId, id);
  let eventId: string | null = null;
  try {
    const { credentials, refresh } = await freshCredentials(deps, connection);
    if (refresh?.state === 'needs_reauth') eventId = refresh.eventId;
    else if (!(isOAuthCredentials(credentials) && connection.status === 'needs_reauth')) {
      await deps.social[connection.platform].verify(credentials);
      if (connection.status === 'needs_reauth') await deps.orm.em.fork().nativeUpdate(SocialConnection, { id }, { status: 'active', lastError: null });
    }
  } catch (error) {
    if (error instanceof SocialRejectedError) {
      eventId = await deps.orm.em.fork().transactional(async (em) => {
        const current = await em.findOne(SocialConnection, id);
        return current && current.status !== 'needs_reauth' ? (await markNeedsReauth(em, current, error.reason)).eventId : null;
      });
    } else if (error instanceof AppError) {
      throw error;
    } else {
      throw platformUnreachable(connection.platform, 'the connection', error);
    }
  }
  if (eventId) await handOverAfterCommit(deps, eventId);
  const checked = await findSocialConnection(deps.orm.em.fork(), caller.workspaceId, id);
  if (checked.status === 'active' && checked.expiresAt) await startKeepAlive(deps, checked);
  return checked;
}

/**
 * Hands the committed event to its delivery within one Temporal deadline. Whatever stops it (Temporal down or hung,
 * the database gone since the commit) leaves the event waiting for the event sweep, which delivers it later: the
 * verify has done its work and answers.
 */
async function handOverAfterCommit(deps: Deps, eventId: string): Promise<void> {
  try {
    await inTemporal(deps.temporal, 'hand over connection.expired', () => handOverEvent(deps, eventId));
  } catch (error) {
    deps.logger.warn({ err: error, eventId }, 'connection.expired not handed to its delivery; the event sweep hands it over');
  }
}
