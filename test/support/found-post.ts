import { expect } from 'vitest';
import type { NotSent, PublishedSocialPost } from '../../src/adapters/social/social-connector.ts';

/** What a connector's findPublished found, which the test expects to be a post. */
export function foundPost(found: PublishedSocialPost | null | NotSent | undefined): PublishedSocialPost {
  expect(found).toMatchObject({ externalPostId: expect.any(String) });
  return found as PublishedSocialPost;
}
