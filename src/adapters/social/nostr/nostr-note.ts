import type { EventTemplate } from 'nostr-tools/core';
import type { OutgoingImage, ThreadReply } from '../social-connector.ts';

// A post as a Nostr note: a kind-1 event (NIP-01) whose content is the text, then the image's (or video's) URL on a
// line of its own, described by a NIP-92 `imeta` tag (https://github.com/nostr-protocol/nips/blob/master/92.md); a reply names the thread's first note and the one it answers with NIP-10
// marked `e` tags, and their author with a `p` tag.

/** The image or video a note links: its type, shape, lasting URL and description. */
export type NoteMedia = Pick<OutgoingImage, 'type' | 'width' | 'height'> & { url: string; alt: string };

export type NoteInput = {
  text: string;
  media?: NoteMedia | undefined;
  replyTo?: ThreadReply | undefined;
  /** Our public key (hex): a thread's notes are all ours. */
  author: string;
  /** A relay where the thread's notes can be found (NIP-10's relay hint). */
  relayHint: string;
  /** Unix seconds: the same for every attempt, so the event, and its id, are the same. */
  createdAt: number;
};

export function noteTemplate({ text, media, replyTo, author, relayHint, createdAt }: NoteInput): EventTemplate {
  const tags: string[][] = [];
  if (replyTo) {
    const { root, parent } = replyTo;
    // NIP-10: a direct reply to the root carries the root marker alone.
    tags.push(['e', root.externalPostId, relayHint, 'root', author]);
    if (parent.externalPostId !== root.externalPostId) tags.push(['e', parent.externalPostId, relayHint, 'reply', author]);
    tags.push(['p', author]);
  }
  if (media) {
    const imeta = ['imeta', `url ${media.url}`, `m ${media.type}`, `dim ${media.width}x${media.height}`];
    if (media.alt) imeta.push(`alt ${media.alt}`);
    tags.push(imeta);
  }
  return { kind: 1, created_at: createdAt, tags, content: media ? `${text}\n\n${media.url}` : text };
}
