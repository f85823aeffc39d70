// Every platform the service publishes to: the catalogue's order, the database's check constraints and the API's
// enum list the same.
export const socialPlatforms = [
  'mastodon',
  'bluesky',
  'x',
  'linkedin',
  'threads',
  'nostr',
  'telegram',
  'discord',
  'slack',
  'pinterest',
  'youtube',
  'instagram',
  'tiktok',
  'facebook',
] as const;
export type SocialPlatform = (typeof socialPlatforms)[number];

/** Each platform as people call it: in what its connector tells customers, and wherever the docs list the platforms. */
export const platformNames: Record<SocialPlatform, string> = {
  mastodon: 'Mastodon',
  bluesky: 'Bluesky',
  x: 'X',
  linkedin: 'LinkedIn',
  threads: 'Threads',
  nostr: 'Nostr',
  telegram: 'Telegram',
  discord: 'Discord',
  slack: 'Slack',
  pinterest: 'Pinterest',
  youtube: 'YouTube',
  instagram: 'Instagram',
  tiktok: 'TikTok',
  facebook: 'Facebook',
};
