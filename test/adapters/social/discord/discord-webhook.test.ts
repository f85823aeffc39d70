import { describe, expect, it } from 'vitest';
import { discordFailureOf, discordWebhookOf } from '../../../../src/adapters/social/discord/discord-webhook.ts';
import { SocialRateLimitedError } from '../../../../src/adapters/social/social-connector.ts';

// How a Discord webhook URL is read, and how long a 429 without Discord's body makes us wait (a proxy in front, or a
// Cloudflare answer, gives only headers).

const webhook = discordWebhookOf('https://discord.com/api/webhooks/1180000000000000000/Xy7-abc_def', 'https://discord.com/api');

describe('Discord webhooks', () => {
  it('when a copied webhook URL is read, then every call goes to the same webhook under the v10 API', () => {
    expect(webhook).toEqual({ id: '1180000000000000000', token: 'Xy7-abc_def', url: 'https://discord.com/api/v10/webhooks/1180000000000000000/Xy7-abc_def' });
  });

  it('when a 429 has no retry_after in its body, then X-RateLimit-Reset-After is the wait, else Retry-After', () => {
    const resetAfter = discordFailureOf(
      { status: 429, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset-after': '3.25' }, body: {} },
      'the message',
      webhook,
    );
    expect(resetAfter).toBeInstanceOf(SocialRateLimitedError);
    expect((resetAfter as SocialRateLimitedError).retryAfterMs).toBe(3_250);
    const retryAfter = discordFailureOf({ status: 429, headers: { 'retry-after': '4' }, body: {} }, 'the message', webhook);
    expect((retryAfter as SocialRateLimitedError).retryAfterMs).toBe(4_000);
  });
});
