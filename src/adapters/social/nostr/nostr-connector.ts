import { finalizeEvent } from 'nostr-tools/pure';
import { hexToBytes } from 'nostr-tools/utils';
import { imageDimensions } from '../image-dimensions.ts';
import { publicKeyOf } from './nostr-keys.ts';
import { noteTemplate, type NoteMedia } from './nostr-note.ts';
import { reachRelay, sendEvent, type OkAnswer, type RelayOptions, type RelayOutcome } from './nostr-relay-socket.ts';
import { ServersRefusedError, ServersUnansweredError, ServersUnavailableError } from '../server-answers.ts';
import { graphemeCount, shortenText } from '../shorten-text.ts';
import {
  SocialRejectedError,
  SocialUnavailableError,
  type NostrCredentials,
  type ServerAnswer,
  type SocialConnector,
  type SocialCredentials,
  type SocialPost,
  type SocialPostDraft,
} from '../social-connector.ts';
import { platformNames } from '../social-platforms.ts';

// Nostr (NIP-01): a post is a kind-1 event signed with the connection's secret key and sent to each of its relays
// over a WebSocket; each answers `OK` (NIP-20). The post is published when at least one relay took it. The event's
// id is the hash of what it says and when (`created_at` = the publication's date, the same for every attempt), so a
// retry sends the same event and a relay that has it answers `duplicate:`. That holds with an image too: its URL is
// the image's lasting link (lasting-image-links.ts), the same on every attempt.

export type NostrConnectorOptions = {
  /** Development only: lets relay URLs point at loopback and private networks. */
  allowPrivateNetworks: boolean;
  /** For each relay: connecting, then its answer. */
  relayTimeoutMs?: number;
};

// The protocol sets no limit on a note's length, and relays set their own (often 64 KB or more), but clients show
// long notes folded and people read them as short posts: 500 grapheme clusters, Mastodon's length, keeps a post
// whole where it is read. The image's URL comes on top of it.
const noteGraphemes = 500;
const defaultRelayTimeoutMs = 10_000;

function keysOf(credentials: SocialCredentials): NostrCredentials {
  if (credentials.platform !== 'nostr') throw new SocialRejectedError(`the Nostr connector cannot use ${credentials.platform} credentials`);
  return credentials;
}

function noteTextOf(post: SocialPostDraft): string {
  return shortenText(post.text, { graphemes: noteGraphemes });
}

async function mediaOf(post: SocialPost): Promise<NoteMedia | undefined> {
  // The relays take no file: the note carries the video's or image's lasting link.
  const { video, image } = post;
  if (video) return { type: video.type, width: video.width, height: video.height, url: await video.url(), alt: video.alt };
  if (!image || !post.imageUrl) return undefined;
  const { width, height } = await imageDimensions(image.bytes, platformNames.nostr);
  return { type: image.contentType, width, height, url: await post.imageUrl(), alt: image.alt };
}

function answerOf(server: string, outcome: RelayOutcome<OkAnswer>): ServerAnswer {
  if (outcome.kind === 'answered') return { server, accepted: outcome.answer.accepted, message: outcome.answer.message };
  return { server, accepted: false, message: outcome.kind === 'unanswered' ? `sent, ${outcome.reason}` : `not reached: ${outcome.reason}` };
}

// NIP-20's prefixes of a refusal that may pass (the relay's own trouble, a rate limit); any other refusal is final.
function refusedForNow(outcome: RelayOutcome<OkAnswer>): boolean {
  return outcome.kind === 'answered' && /^(rate-limited|error):/.test(outcome.answer.message);
}

function listOf(answers: ServerAnswer[]): string {
  return answers.map(({ server, message }) => `${server}: ${message || 'refused'}`).join('; ');
}

/** The connector for Nostr relays, on the public internet only unless allowed. */
export function createNostrConnector(options: NostrConnectorOptions): SocialConnector {
  const relayOptions: RelayOptions = { allowPrivateNetworks: options.allowPrivateNetworks, timeoutMs: options.relayTimeoutMs ?? defaultRelayTimeoutMs };

  return {
    platform: 'nostr',
    declaration: {
      platform: 'nostr',
      auth: 'token',
      text: { max: noteGraphemes, unit: 'graphemes' },
      // Not uploaded: the note links the image where this service serves it, so the limit is ours, not the relays'.
      images: { types: ['image/png', 'image/jpeg'], maxBytes: 16 * 1024 * 1024, maxCount: 1, altText: true },
      // Not uploaded either: the note links the video where this service serves it, so the limit is ours.
      video: { types: ['video/mp4'], maxBytes: 100 * 1024 * 1024 },
      threads: true,
      destination: null,
      retriesNeverDuplicate: {
        guaranteed: true,
        how: "The event's id is the hash of its content and date, the same for every attempt, and a relay keeps one event per id (an image or video is linked by a URL that never changes).",
      },
    },

    async verify(credentials) {
      const { secretKey, relays } = keysOf(credentials);
      const outcomes = await Promise.all(relays.map((relay) => reachRelay(relay, relayOptions)));
      if (!outcomes.some((outcome) => outcome.kind === 'answered')) {
        const reasons = outcomes.map((outcome, index) => `${relays[index]}: ${outcome.kind === 'unreachable' ? outcome.reason : 'no answer'}`).join('; ');
        const forGood = outcomes.every((outcome) => outcome.kind === 'unreachable' && outcome.forGood);
        if (forGood) throw new SocialRejectedError(`No relay could be reached (${reasons})`, 'server');
        throw new SocialUnavailableError(`No relay could be reached (${reasons})`);
      }
      const account = publicKeyOf(secretKey);
      return { accountId: account.hex, accountName: account.npub };
    },

    async preview(post) {
      const text = noteTextOf(post);
      const image = post.image
        ? { type: post.image.contentType, bytes: post.image.bytes.length, ...(await imageDimensions(post.image.bytes, platformNames.nostr)) }
        : null;
      return { text, count: graphemeCount(text), image };
    },

    async publish(credentials, post) {
      const { secretKey, relays } = keysOf(credentials);
      const author = publicKeyOf(secretKey).hex;
      const media = await mediaOf(post);
      const createdAt = Math.floor((post.datedAt ?? new Date()).getTime() / 1000);
      const template = noteTemplate({ text: noteTextOf(post), media, replyTo: post.replyTo, author, relayHint: relays[0] ?? '', createdAt });
      const event = finalizeEvent(template, hexToBytes(secretKey));

      const outcomes = await Promise.all(relays.map((relay) => sendEvent(relay, event, relayOptions)));
      const answers = outcomes.map((outcome, index) => answerOf(relays[index]!, outcome));
      if (answers.some((answer) => answer.accepted)) return { externalPostId: event.id, answers };
      if (outcomes.some((outcome) => outcome.kind === 'unanswered')) {
        throw new ServersUnansweredError(`No relay accepted the note, and some did not answer after it was sent (${listOf(answers)})`, answers);
      }
      if (outcomes.some((outcome) => (outcome.kind === 'unreachable' && !outcome.forGood) || refusedForNow(outcome))) {
        throw new ServersUnavailableError(`No relay accepted the note (${listOf(answers)})`, answers);
      }
      throw new ServersRefusedError(`Every relay refused the note (${listOf(answers)})`, answers);
    },
  };
}
