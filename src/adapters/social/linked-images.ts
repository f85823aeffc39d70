import type { ImageLinkProblems } from './image-links-public-url.ts';
import type { SocialPlatform } from './social-connector.ts';

/** How a post's image reaches a platform that takes no upload: a link of ours, which it or its readers fetch. */
export type ImageLinkKind = keyof ImageLinkProblems;

// Threads fetches the image once, while posting: a signed, expiring link does. A Nostr note keeps its link for
// ever, and readers' clients fetch it whenever they show the note: a lasting link (lasting-image-links.ts).
const linkKinds: Partial<Record<SocialPlatform, ImageLinkKind>> = { threads: 'signed', nostr: 'lasting' };

/** The kind of link a platform is given for a post's image, or undefined when the image is uploaded to it. */
export function imageLinkKindOf(platform: SocialPlatform): ImageLinkKind | undefined {
  return linkKinds[platform];
}
