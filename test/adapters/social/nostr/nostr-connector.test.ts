import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { verifyEvent } from 'nostr-tools/pure';
import { createNostrConnector } from '../../../../src/adapters/social/nostr/nostr-connector.ts';
import { newSecretKeyHex, publicKeyOf } from '../../../../src/adapters/social/nostr/nostr-keys.ts';
import { ServersRefusedError } from '../../../../src/adapters/social/server-answers.ts';
import { SocialRejectedError, type NostrCredentials } from '../../../../src/adapters/social/social-connector.ts';
import { startNostrRelay, type NostrRelay } from '../../../infra/nostr-relay.ts';
import { failureOf } from '../../../support/failure-of.ts';
import { makeBlankPng } from '../../../support/images.ts';
import { socialVideoOf } from '../../../support/video-files.ts';

// The Nostr connector against two real relays (nostr-relay, test/infra/nostr-relay.ts), one of which refuses every
// note: what a note holds when read back (signature, NIP-92 imeta, NIP-10 reply tags), each relay's answer, and that
// sending a note again adds nothing.

let accepting: NostrRelay;
let refusing: NostrRelay;
const tls = () => ({ certPath: inject('devCertPath'), keyPath: inject('devKeyPath') });
const connector = createNostrConnector({ allowPrivateNetworks: true, relayTimeoutMs: 5_000 });

beforeAll(async () => {
  [accepting, refusing] = await Promise.all([startNostrRelay({ tls: tls() }), startNostrRelay({ tls: tls(), refuseNotes: true })]);
});
afterAll(async () => {
  await Promise.all([accepting?.close(), refusing?.close()]);
});

function credentials(relays = [accepting.url, refusing.url]): NostrCredentials {
  return { platform: 'nostr', secretKey: newSecretKeyHex(), relays };
}

describe('the Nostr connector on real relays', () => {
  it('when a note is published to an accepting and a refusing relay, then it is published with both answers and the relay holds it signed', async () => {
    const keys = credentials();
    const datedAt = new Date('2026-11-27T10:00:00Z');
    const published = await connector.publish(keys, { text: 'Harbour lights tonight', idempotencyKey: 'k1', datedAt });
    expect(published.answers).toEqual([
      { server: accepting.url, accepted: true, message: '' },
      { server: refusing.url, accepted: false, message: 'invalid: kind=1 not allowed' },
    ]);
    const [event, ...more] = await accepting.query({ ids: [published.externalPostId] });
    expect(more).toEqual([]);
    expect(verifyEvent(event!)).toBe(true);
    expect(event).toMatchObject({ kind: 1, content: 'Harbour lights tonight', pubkey: publicKeyOf(keys.secretKey).hex, created_at: datedAt.getTime() / 1000 });
    expect(await refusing.query({ ids: [published.externalPostId] })).toEqual([]);

    // Sent again (a retry): the same event, which the relay already has.
    const again = await connector.publish(keys, { text: 'Harbour lights tonight', idempotencyKey: 'k1', datedAt });
    expect(again.externalPostId).toBe(published.externalPostId);
    expect(again.answers?.[0]).toMatchObject({ accepted: true, message: expect.stringMatching(/^duplicate:/) });
    expect(await accepting.query({ authors: [event!.pubkey] })).toHaveLength(1);
  });

  it('when every relay refuses the note, then the publish is refused for good with each answer', async () => {
    const failure = await failureOf(connector.publish(credentials([refusing.url]), { text: 'Nobody takes this', idempotencyKey: 'k2' }), ServersRefusedError);
    expect(failure.answers).toEqual([{ server: refusing.url, accepted: false, message: 'invalid: kind=1 not allowed' }]);
  });

  it('when a note with an image replies in a thread, then it carries the imeta tag and NIP-10 root and reply tags naming its author', async () => {
    const keys = credentials([accepting.url]);
    const author = publicKeyOf(keys.secretKey).hex;
    const datedAt = new Date();
    const root = await connector.publish(keys, { text: 'Part 1', idempotencyKey: 'k3', datedAt });
    const second = await connector.publish(keys, { text: 'Part 2', idempotencyKey: 'k3', datedAt, replyTo: { root, parent: root } });
    const png = makeBlankPng(40, 30);
    const thirdPart = {
      text: 'Part 3',
      idempotencyKey: 'k3',
      datedAt,
      replyTo: { root, parent: second },
      image: { bytes: png, contentType: 'image/png' as const, alt: 'A harbour' },
      imageUrl: () => Promise.resolve('https://content.example.com/images/abc.def.png'),
    };
    const third = await connector.publish(keys, thirdPart);

    const [secondEvent] = await accepting.query({ ids: [second.externalPostId] });
    expect(secondEvent!.tags).toEqual([
      ['e', root.externalPostId, accepting.url, 'root', author],
      ['p', author],
    ]);
    const [thirdEvent] = await accepting.query({ ids: [third.externalPostId] });
    expect(verifyEvent(thirdEvent!)).toBe(true);
    expect(thirdEvent!.content).toBe('Part 3\n\nhttps://content.example.com/images/abc.def.png');
    expect(thirdEvent!.tags).toEqual([
      ['e', root.externalPostId, accepting.url, 'root', author],
      ['e', second.externalPostId, accepting.url, 'reply', author],
      ['p', author],
      ['imeta', 'url https://content.example.com/images/abc.def.png', 'm image/png', 'dim 40x30', 'alt A harbour'],
    ]);

    // A retry links the image by the same lasting URL: the same event, which the relay already has.
    const retried = await connector.publish(keys, thirdPart);
    expect(retried.externalPostId).toBe(third.externalPostId);
    expect(retried.answers?.[0]).toMatchObject({ accepted: true, message: expect.stringMatching(/^duplicate:/) });
    expect(await accepting.query({ authors: [author] })).toHaveLength(3);
  });

  it('when a note carries a video, then it links the video by its lasting URL with an imeta tag of its type, shape and description', async () => {
    const keys = credentials([accepting.url]);
    const url = 'https://content.example.com/images/abc.def.mp4';
    const video = socialVideoOf(Buffer.from('not read: the relays take no file'), {
      width: 1080,
      height: 1920,
      alt: 'Lights',
      url: () => Promise.resolve(url),
    });
    const published = await connector.publish(keys, { text: 'Harbour lights, moving', idempotencyKey: 'k5', datedAt: new Date(), video });
    const [event] = await accepting.query({ ids: [published.externalPostId] });
    expect(verifyEvent(event!)).toBe(true);
    expect(event!.content).toBe(`Harbour lights, moving\n\n${url}`);
    expect(event!.tags).toEqual([['imeta', `url ${url}`, 'm video/mp4', 'dim 1080x1920', 'alt Lights']]);
  });

  it('when a relay is on a private address and private networks are not allowed, then checking the connection refuses it', async () => {
    const guarded = createNostrConnector({ allowPrivateNetworks: false });
    const failure = await failureOf(guarded.verify(credentials([accepting.url])), SocialRejectedError);
    expect(failure.reason).toContain('does not resolve to a public address');
  });

  it('when the connection is checked, then the account is the public key, in hex and as npub', async () => {
    const keys = credentials();
    const account = await connector.verify(keys);
    expect(account).toEqual({ accountId: publicKeyOf(keys.secretKey).hex, accountName: expect.stringMatching(/^npub1/) });
  });
});
