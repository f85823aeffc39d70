import type { EntityManager } from '@mikro-orm/postgresql';
import type { PlatformQuota } from '../../adapters/social/platform-declaration.ts';
import { quotaDayOf, untilMidnightMs } from '../../adapters/social/quota-day.ts';
import { SocialRateLimitedError } from '../../adapters/social/social-connector.ts';
import { platformNames, type SocialPlatform } from '../../adapters/social/social-platforms.ts';

// A platform's daily quota is the operator's (YouTube's is per Google Cloud project, shared by every connection of
// every workspace), so its count is kept in PostgreSQL, not in a process: one row per platform and day, added to by
// a single upsert the database serialises, so concurrent publications on every replica all count, none overwrites
// another, and all read the same total. The count is ours: calls made outside the service (or before it counted)
// are not in it, so the platform's own answer (quotaExceeded) stays the last word.

/**
 * Counts `units` of the platform's quota as spent today (the platform's day), or refuses (a wait until the next day)
 * when they would pass it: checked and counted in one statement, so two replicas can never both take the last units.
 */
export async function spendPlatformQuota(em: EntityManager, platform: SocialPlatform, quota: PlatformQuota, units: number, now = new Date()): Promise<void> {
  const day = quotaDayOf(quota.timeZone, now);
  const counted = await em.execute<Array<{ units: number }>>(
    `insert into "platform_quota_days" ("platform", "day", "units") select ?, ?::date, ?::int where ?::int <= ?::int
     on conflict ("platform", "day") do update set "units" = "platform_quota_days"."units" + excluded."units"
       where "platform_quota_days"."units" + excluded."units" <= ?::int
     returning "units"`,
    [platform, day, units, units, quota.daily, quota.daily],
  );
  if (counted.length === 0) throw quotaReached(platform, quota, await platformQuotaUsed(em, platform, quota, now), units, now);
}

/** The units of the platform's quota counted today (the platform's day). */
export async function platformQuotaUsed(em: EntityManager, platform: SocialPlatform, quota: PlatformQuota, now = new Date()): Promise<number> {
  const rows = await em.execute<Array<{ units: number }>>(`select "units" from "platform_quota_days" where "platform" = ? and "day" = ?`, [
    platform,
    quotaDayOf(quota.timeZone, now),
  ]);
  return Number(rows[0]?.units ?? 0);
}

/** Whether one more post would pass the day's quota, having used `used` of it. */
export const postWouldPassQuota = (quota: PlatformQuota, used: number): boolean => used + quota.unitsPerPost > quota.daily;

/**
 * Refuses to start a post that would pass the platform's quota today: a rate limit that waits until the platform's
 * day begins again, rather than a call the platform would answer `quotaExceeded` after the upload had begun.
 */
export async function ensureQuotaForPost(em: EntityManager, platform: SocialPlatform, quota: PlatformQuota, now = new Date()): Promise<void> {
  const used = await platformQuotaUsed(em, platform, quota, now);
  if (postWouldPassQuota(quota, used)) throw quotaReached(platform, quota, used, quota.unitsPerPost, now);
}

function quotaReached(platform: SocialPlatform, quota: PlatformQuota, used: number, needed: number, now: Date): SocialRateLimitedError {
  return new SocialRateLimitedError(
    `${platformNames[platform]} has ${used} of its ${quota.daily} ${quota.what} used and ${needed} more are needed; publishing waits until the quota resets at midnight (${quota.timeZone})`,
    untilMidnightMs(quota.timeZone, now),
  );
}
