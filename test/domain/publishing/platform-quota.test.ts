import { describe, expect, it } from 'vitest';
import { SocialRateLimitedError } from '../../../src/adapters/social/social-connector.ts';
import { ensureQuotaForPost, platformQuotaUsed, spendPlatformQuota } from '../../../src/domain/publishing/platform-quota.ts';
import { useTestDatabase } from '../../support/test-database.ts';

// A platform's daily quota counted in the database, so that every replica adds to and reads the one count.

const database = useTestDatabase();
const quota = { what: 'units today', daily: 10_000, unitsPerPost: 1600, timeZone: 'America/Los_Angeles' };
// 20:00 UTC on 10 March is 13:00 in Los Angeles, the same Pacific day as 06:59 UTC on 11 March (23:59 there).
const noon = new Date('2031-03-10T20:00:00Z');
const lateEvening = new Date('2031-03-11T06:59:00Z');
const nextMorning = new Date('2031-03-11T08:00:00Z');

describe("a platform's daily quota", () => {
  it('when two publications spend units at once, then both are counted, on the Pacific day they were spent', async () => {
    const em = () => database.orm.em.fork();
    await Promise.all([spendPlatformQuota(em(), 'youtube', quota, 1600, noon), spendPlatformQuota(em(), 'youtube', quota, 1600, lateEvening)]);
    expect(await platformQuotaUsed(em(), 'youtube', quota, noon)).toBe(3200);
    expect(await platformQuotaUsed(em(), 'youtube', quota, nextMorning)).toBe(0);
    expect(await platformQuotaUsed(em(), 'tiktok', quota, noon)).toBe(0);
  });

  it('when a post would pass the day’s quota, then spending and starting it are both refused with a wait until Pacific midnight, and nothing is counted', async () => {
    const em = () => database.orm.em.fork();
    const day = new Date('2031-04-02T19:00:00Z');
    await spendPlatformQuota(em(), 'youtube', quota, 9000, day);
    const refused = await spendPlatformQuota(em(), 'youtube', quota, 1600, day).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SocialRateLimitedError);
    // 19:00 UTC is noon in Los Angeles (PDT): twelve hours to midnight.
    expect((refused as SocialRateLimitedError).retryAfterMs).toBe(12 * 60 * 60_000);
    await expect(ensureQuotaForPost(em(), 'youtube', quota, day)).rejects.toBeInstanceOf(SocialRateLimitedError);
    expect(await platformQuotaUsed(em(), 'youtube', quota, day)).toBe(9000);
    await spendPlatformQuota(em(), 'youtube', quota, 1000, day);
    expect(await platformQuotaUsed(em(), 'youtube', quota, day)).toBe(10_000);
  });
});
