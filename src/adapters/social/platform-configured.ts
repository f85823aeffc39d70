import type { Config } from '../../config.ts';
import type { SocialPlatform } from './social-connector.ts';

/**
 * Whether the operator's configuration lets this service publish to the platform: one connected with a token, an app
 * password or a webhook needs nothing of the operator; an OAuth platform needs the operator's client id and secret.
 */
export function platformConfigured(config: Config, platform: SocialPlatform): boolean {
  switch (platform) {
    case 'mastodon':
    case 'bluesky':
    case 'nostr':
    case 'slack':
    case 'telegram':
    case 'discord':
      return true;
    case 'x':
    case 'linkedin':
    case 'threads':
      return config.social[platform].client !== null;
  }
}
