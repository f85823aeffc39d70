import { defineEntity, p } from '@mikro-orm/postgresql';

/**
 * The units of a platform's daily API quota spent on one of its days (YouTube: the operator's Google Cloud project,
 * shared by every connection of every workspace, its day running midnight to midnight Pacific time). One row per
 * platform and day, counted up in the database itself (platform-quota.ts), so every replica sees the one count.
 */
export const PlatformQuotaDay = defineEntity({
  name: 'PlatformQuotaDay',
  tableName: 'platform_quota_days',
  properties: {
    platform: p.text().primary(),
    /** The platform's day (`YYYY-MM-DD` in its quota's time zone). */
    day: p.date().primary(),
    units: p.integer().default(0),
  },
});
