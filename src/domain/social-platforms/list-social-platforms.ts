import type { PlatformDeclaration } from '../../adapters/social/platform-declaration.ts';
import { socialPlatforms } from '../../adapters/social/social-connector.ts';
import type { Deps } from '../deps.ts';

export type SocialPlatformEntry = PlatformDeclaration & { configured: boolean };

/** Every platform the service publishes to, as its connector declares it, and whether the operator set it up. */
export function listSocialPlatforms(deps: Pick<Deps, 'social' | 'socialConfigured'>): SocialPlatformEntry[] {
  return socialPlatforms.map((platform) => ({ ...deps.social[platform].declaration, configured: deps.socialConfigured[platform] }));
}
