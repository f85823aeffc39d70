import type { Config } from '../../config.ts';
import { createBlueskyConnector } from './bluesky-connector.ts';
import { createMastodonConnector } from './mastodon-connector.ts';
import type { SocialConnector, SocialPlatform } from './social-connector.ts';

/** One connector per platform, guarded like every request to a customer-given address. */
export function createSocialConnectors(config: Config['social']): Record<SocialPlatform, SocialConnector> {
  return {
    mastodon: createMastodonConnector({ allowPrivateNetworks: config.allowPrivateNetworks }),
    bluesky: createBlueskyConnector({ allowPrivateNetworks: config.allowPrivateNetworks }),
  };
}
