import type { EventTemplate } from 'nostr-tools/core';
import type { OutgoingImage, ThreadReply } from '../social-connector.ts';

// A post as a Nostr note: a kind-1 event (NIP-01) whose content is the text, then the image's URL on a line of its
// own, described by a NIP-92 `imeta` tag; a reply names the thread's first note and the one it answers with NIP-10
// marked `e` tags, and their author with a `p` tag.

export type NoteImage = OutgoingImage & { url: string; alt: string };

export type NoteInput = {
  text: string;
  image?: NoteImage | undefined;
  replyTo?: ThreadReply | undefined;
  /** Our public key (hex): a thread's notes are all ours. */
  author: string;
  /** A relay where the thread's notes can be found (NIP-10's relay hint). */
  relayHint: string;
  /** Unix seconds: the same for every attempt, so the event, and its id, are the same. */
  createdAt: number;
};

export function noteTemplate({ text, image, replyTo, author, relayHint, createdAt }: NoteInput): EventTemplate {
  const tags: string[][] = [];
  if (replyTo) {
    const { root, parent } = replyTo;
    // NIP-10: a direct reply to the root carries the root marker alone.
    tags.push(['e', root.externalPostId, relayHint, 'root', author]);
    if (parent.externalPostId !== root.externalPostId) tags.push(['e', parent.externalPostId, relayHint, 'reply', author]);
    tags.push(['p', author]);
  }
  if (image) {
    const imeta = ['imeta', `url ${image.url}`, `m ${image.type}`, `dim ${image.width}x${image.height}`];
    if (image.alt) imeta.push(`alt ${image.alt}`);
    tags.push(imeta);
  }
  return { kind: 1, created_at: createdAt, tags, content: image ? `${text}\n\n${image.url}` : text };
}
