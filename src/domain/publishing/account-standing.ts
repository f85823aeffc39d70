import type { SocialConnection } from '../../adapters/database/entities/social-connection.ts';
import { SocialRejectedError, type PlatformFact, type PlatformLimit } from '../../adapters/social/social-connector.ts';
import { platformNames } from '../../adapters/social/social-platforms.ts';
import type { Deps } from '../deps.ts';
import { withTimeout } from '../../common/async/with-timeout.ts';
import { freshCredentials } from '../social-connections/fresh-credentials.ts';
import { platformQuotaUsed, postWouldPassQuota } from './platform-quota.ts';

// The one thing a dry run asks a platform: the limits it counts against the account (Instagram's posts a day through
// its API), so a publication that would wait for one says so in advance, and what it says of the account's settings
// that bear on a post (TikTok's creator_info); a platform's daily quota (YouTube's) is our
// own count, read from the database. Nothing is sent; a platform that cannot be
// asked makes a problem of the preview, not a failed dry run.

type StandingProblem = { code: 'limit_reached' | 'platform_unreachable'; message: string };

export type Standing = { limits: PlatformLimit[]; facts: PlatformFact[]; problems: StandingProblem[] };

const none: Standing = { limits: [], facts: [], problems: [] };

// A dry run answers within seconds: a platform slower than this is reported as not answering, whatever the
// request's own timeout (SOCIAL_REQUEST_TIMEOUT_SECONDS) would allow.
const standingDeadlineMs = 10_000;

/**
 * The account's limits as its platform says they stand, and the problems they make, after the platform's daily quota
 * as we count it (platform-quota.ts, not asked of the platform); none where the platform counts none.
 */
export async function accountStandingOf(deps: Deps, connection: SocialConnection): Promise<Standing> {
  const quota = await quotaStandingOf(deps, connection);
  const account = await platformStandingOf(deps, connection);
  return { limits: [...quota.limits, ...account.limits], facts: account.facts, problems: [...quota.problems, ...account.problems] };
}

/** The platform's daily quota as counted today, and `limit_reached` when one more post would not fit. */
async function quotaStandingOf(deps: Deps, connection: SocialConnection): Promise<Standing> {
  const { quota } = deps.social[connection.platform].declaration;
  if (!quota) return none;
  const used = await platformQuotaUsed(deps.orm.em.fork(), connection.platform, quota);
  const limits = [{ what: quota.what, used, limit: quota.daily }];
  if (!postWouldPassQuota(quota, used)) return { limits, facts: [], problems: [] };
  const message = `${platformNames[connection.platform]} has ${used} of its ${quota.daily} ${quota.what} used and a post needs ${quota.unitsPerPost}: publishing would wait until the quota resets at midnight (${quota.timeZone}).`;
  return { limits, facts: [], problems: [{ code: 'limit_reached', message }] };
}

async function platformStandingOf(deps: Deps, connection: SocialConnection): Promise<Standing> {
  const connector = deps.social[connection.platform];
  // A connection that cannot publish has its own problem already (connection_needs_reauth, platform_not_configured).
  if (!connector.standing || connection.status === 'needs_reauth' || !deps.socialConfigured[connection.platform]) return none;
  const name = platformNames[connection.platform];
  try {
    const asked = async () => connector.standing!((await freshCredentials(deps, connection)).credentials);
    const { limits, facts = [] } = await withTimeout(asked(), standingDeadlineMs);
    const reached = limits.filter(({ used, limit }) => used >= limit);
    const problems = reached.map(({ what, used, limit }) => ({
      code: 'limit_reached' as const,
      message: `${name} counts ${used} of its ${limit} ${what}: publishing would wait until it frees one.`,
    }));
    return { limits, facts, problems };
  } catch (error) {
    const why = error instanceof SocialRejectedError ? `it refused: ${error.reason}` : 'it could not be reached or did not answer in time';
    if (!(error instanceof SocialRejectedError))
      deps.logger.warn({ err: error, platform: connection.platform }, 'a dry run could not ask a platform for the account limits');
    const message = `${name} could not be asked for the account's limits and settings (${why}).`;
    return { limits: [], facts: [], problems: [{ code: 'platform_unreachable', message }] };
  }
}
