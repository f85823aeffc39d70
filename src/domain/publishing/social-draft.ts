import { buffer } from 'node:stream/consumers';
import type { Post } from '../../adapters/database/entities/post.ts';
import type { OutgoingVideo, SocialPostDraft } from '../../adapters/social/social-connector.ts';
import type { Deps } from '../deps.ts';

/** What the client asked one connection to be sent instead of the post's own text and alt text. */
export type DraftOverride = { text?: string | null | undefined; altText?: string | null | undefined };

/** The bytes of the post's current image (a PNG), or null when it has none. */
export async function postImageOf(deps: Pick<Deps, 'storage'>, post: Pick<Post, 'imageKey'>): Promise<Buffer | null> {
  const stored = post.imageKey ? await deps.storage.get(post.imageKey) : null;
  return stored ? buffer(stored.body) : null;
}

/** The alt text a connection is given for the post's image or video: the client's, else the post's prompt. */
export function altTextOf(post: Pick<Post, 'prompt'>, override: DraftOverride = {}): string {
  return override.altText ?? post.prompt.slice(0, 1000);
}

/**
 * What a connection is given for the post, by the publish and by its dry run alike: the title and the image (its
 * prompt as the description), or what the client set for that connection instead; or, where the video goes
 * (post-media.ts), the video instead of the image.
 */
export function socialDraftOf(
  post: Pick<Post, 'title' | 'prompt'>,
  image: Buffer | null,
  override: DraftOverride = {},
  video?: OutgoingVideo,
): SocialPostDraft {
  const text = override.text ?? post.title;
  if (video) return { text, video };
  return { text, ...(image ? { image: { bytes: image, contentType: 'image/png', alt: altTextOf(post, override) } } : {}) };
}
