// Every platform the service publishes to: the catalogue's order, the database's check constraints and the API's
// enum list the same.
export const socialPlatforms = ['mastodon', 'bluesky', 'x', 'linkedin', 'threads', 'nostr', 'telegram', 'discord', 'slack'] as const;
export type SocialPlatform = (typeof socialPlatforms)[number];
