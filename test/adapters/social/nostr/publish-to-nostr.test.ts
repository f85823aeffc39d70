import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { decode, npubEncode, nsecEncode } from 'nostr-tools/nip19';
import { generateSecretKey, getPublicKey, verifyEvent } from 'nostr-tools/pure';
import { Post } from '../../../../src/adapters/database/entities/post.ts';
import type { Schemas } from '../../../../src/api/schemas.ts';
import { startNostrRelay, type NostrRelay } from '../../../infra/nostr-relay.ts';
import { fetchImage } from '../../../support/images.ts';
import { longThreadText, unnumbered } from '../../../support/thread-text.ts';
import { startAppWithWorkspace } from '../../../support/app-with-workspace.ts';
import type { TestApp } from '../../../support/test-app.ts';
import type { TestWorkspace } from '../../../support/workspaces.ts';

// publish-social end to end (api, worker on the Temporal dev server, PostgreSQL) to two real Nostr relays
// (nostr-relay, test/infra/nostr-relay.ts), one of which refuses every note: the connection, the note read back with
// a valid signature and its image's lasting link, each relay's answer in the target's attempts, and a retry after an
// answer lost once the relay had stored the note, which leaves one note on the relay.

type Target = Schemas['PublishTarget'];

let accepting: NostrRelay;
let refusing: NostrRelay;
let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;
let connection: Schemas['SocialConnection'];
/** The connection's public key (hex), as notes carry it. */
let author: string;

beforeAll(async () => {
  const tls = { certPath: inject('devCertPath'), keyPath: inject('devKeyPath') };
  let started;
  [accepting, refusing, started] = await Promise.all([
    startNostrRelay({ tls }),
    startNostrRelay({ tls, refuseNotes: true }),
    startAppWithWorkspace({ env: { SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true', API_WAIT_SECONDS: '30' }, project: 'Launches' }),
  ]);
  ({ app, workspace, projectId } = started);
  const created = await workspace.client.post<Schemas['SocialConnection']>('/social-connections', { platform: 'nostr', relays: [accepting.url, refusing.url] });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  connection = created.body;
  const decoded = decode(connection.accountName);
  author = decoded.type === 'npub' ? decoded.data : '';
});
afterAll(async () => {
  await app?.stop();
  await Promise.all([accepting?.close(), refusing?.close()]);
});

async function newPost(title: string): Promise<string> {
  const id = (await workspace.client.post<{ id: string }>('/posts', { title, prompt: 'A rocket over a harbour at dawn', projectId })).body.id;
  expect((await workspace.client.post(`/posts/${id}/generate`)).status).toBe(200);
  return id;
}

const refusal = { server: '', accepted: false, message: 'invalid: kind=1 not allowed' };

describe('publish-social to Nostr on real relays', () => {
  it('when a connection is made without a key, then a key is made for it and its public key shown; one given as nsec is used', async () => {
    expect(connection).toMatchObject({ platform: 'nostr', accountName: expect.stringMatching(/^npub1/), serverUrl: accepting.url });
    expect(author).toMatch(/^[0-9a-f]{64}$/);
    const secretKey = generateSecretKey();
    const given = await workspace.client.post<Schemas['SocialConnection']>('/social-connections', {
      platform: 'nostr',
      secretKey: nsecEncode(secretKey),
      relays: [accepting.url],
    });
    expect(given.status).toBe(201);
    expect(given.body).toMatchObject({ accountName: npubEncode(getPublicKey(secretKey)), serverUrl: accepting.url });
    expect(JSON.stringify(given.body)).not.toContain('nsec1');
  });

  it('when no relay can be reached, or the key is not one, then the connection is refused naming the field', async () => {
    const unreachable = await workspace.client.post<Schemas['Problem']>('/social-connections', {
      platform: 'nostr',
      relays: [`${accepting.directUrl.replace('ws:', 'wss:')}`],
    });
    expect(unreachable.status).toBe(503);
    const badKey = await workspace.client.post<Schemas['Problem']>('/social-connections', {
      platform: 'nostr',
      secretKey: 'f'.repeat(64),
      relays: [accepting.url],
    });
    expect(badKey.status).toBe(400);
    expect(badKey.body.errors).toEqual([expect.objectContaining({ path: '/secretKey' })]);
  });

  it('when a post with an image is published, then the accepting relay holds the signed note with its imeta tag and the attempt shows both answers', async () => {
    const id = await newPost('Harbour lights tonight');
    const response = await workspace.client.post<Target[]>(`/posts/${id}/publish-social`, { connectionIds: [connection.id] });
    const [target] = response.body;
    expect(target!.status).toBe('Published');
    expect(target!.attempts).toEqual([
      expect.objectContaining({
        outcome: 'published',
        answers: [
          { server: accepting.url, accepted: true, message: '' },
          { ...refusal, server: refusing.url },
        ],
      }),
    ]);

    const events = await accepting.query({ ids: [target!.externalPostId!] });
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(verifyEvent(event!)).toBe(true);
    expect(event!.pubkey).toBe(author);
    const imeta = event!.tags.find((tag) => tag[0] === 'imeta')!;
    const url = imeta[1]!.slice('url '.length);
    expect(event!.content).toBe(`Harbour lights tonight\n\n${url}`);
    // The image's lasting link, not a signed one that expires: it serves the post's image (through a redirect).
    const post = await workspace.client.get<Schemas['Post']>(`/posts/${id}`);
    const imageKey = (await app.api.services.orm.em.fork().findOneOrFail(Post, id)).imageKey!;
    expect(url).toBe(app.api.services.imageLinks.linkTo(imageKey));
    expect(url).toMatch(/\/images\/[\w-]+\.[\w-]+\.png$/);
    const image = await fetchImage(url);
    expect(image.bytes).toEqual((await fetchImage(post.body.imageUrl!)).bytes);
    expect(imeta.slice(2)).toEqual(['m image/png', `dim ${image.width}x${image.height}`, 'alt A rocket over a harbour at dawn']);
    expect(await refusing.query({ authors: [author] })).toEqual([]);
  });

  it("when every relay refuses the note, then the target fails with each relay's words, in the attempt too", async () => {
    const onlyRefusing = await workspace.client.post<Schemas['SocialConnection']>('/social-connections', { platform: 'nostr', relays: [refusing.url] });
    expect(onlyRefusing.status).toBe(201);
    const id = await newPost('Nobody takes this');
    const response = await workspace.client.post<Target[]>(`/posts/${id}/publish-social`, { connectionIds: [onlyRefusing.body.id] });
    const [target] = response.body;
    expect(target).toMatchObject({ status: 'Failed', errorMessage: expect.stringContaining('invalid: kind=1 not allowed') });
    expect(target!.attempts).toEqual([
      {
        at: expect.any(String),
        outcome: 'refused',
        detail: expect.stringContaining('Every relay refused'),
        nextAttemptAt: null,
        answers: [{ ...refusal, server: refusing.url }],
      },
    ]);
  });

  it('when the catalogue is read and a text over 500 graphemes is previewed, then Nostr is listed with its limits and the preview is cut to 500 graphemes', async () => {
    const catalogue = await workspace.client.get<Schemas['SocialPlatformEntry'][]>('/social-platforms');
    expect(catalogue.body.find((entry) => entry.platform === 'nostr')).toEqual({
      platform: 'nostr',
      auth: 'token',
      configured: true,
      text: { max: 500, unit: 'graphemes' },
      images: { types: ['image/png', 'image/jpeg'], maxBytes: 16 * 1024 * 1024, maxCount: 1, altText: true },
      video: { types: ['video/mp4'], maxBytes: 100 * 1024 * 1024 },
      threads: true,
      destination: null,
      settings: [],
      retriesNeverDuplicate: { guaranteed: true, how: expect.stringContaining("event's id") },
    });
    const id = await newPost('Lanterns');
    const text = 'Lanterns sway over the harbour wall tonight. '.repeat(14).trim();
    const preview = await workspace.client.post<Schemas['PublishPreview'][]>(`/posts/${id}/publish-social`, {
      connectionIds: [connection.id],
      overrides: { [connection.id]: { text } },
      dryRun: true,
    });
    expect(preview.status).toBe(200);
    const [entry] = preview.body;
    expect(entry).toMatchObject({ platform: 'nostr', count: 500, image: { type: 'image/png' } });
    expect(entry!.text.endsWith('…')).toBe(true);
    // The tests' PUBLIC_URL is on localhost: readers' clients could not fetch the note's image link.
    expect(entry!.problems).toEqual([
      { code: 'text_too_long', message: expect.any(String) },
      { code: 'public_url_unreachable', message: expect.stringContaining("Nostr clients fetch the note's image") },
    ]);
    const notes = await accepting.query({ authors: [author], kinds: [1] });
    expect(notes.filter((note) => note.content.startsWith('Lanterns'))).toEqual([]);
  });

  it('when the accepting relay stores the note and its answer is lost, then the retry sends the same note and the relay holds it once', async () => {
    const title = 'Ferry schedule for the weekend';
    const id = await newPost(title);
    accepting.dropEventAnswers(1);
    const response = await workspace.client.post<Target[]>(`/posts/${id}/publish-social`, { connectionIds: [connection.id] });
    const [target] = response.body;
    expect(target!.status).toBe('Published');
    expect(target!.attempts.map(({ outcome, answers }) => [outcome, answers])).toEqual([
      [
        'unknown',
        [
          { server: accepting.url, accepted: false, message: 'sent, the relay closed the connection' },
          { ...refusal, server: refusing.url },
        ],
      ],
      [
        'published',
        [
          { server: accepting.url, accepted: true, message: expect.stringMatching(/^duplicate:/) },
          { ...refusal, server: refusing.url },
        ],
      ],
    ]);
    const notes = (await accepting.query({ authors: [author] })).filter((event) => event.content.startsWith(title));
    expect(notes.map((note) => note.id)).toEqual([target!.externalPostId]);
  });

  it('when a 1,200-character text is published as a thread, then the relay holds a chain of signed notes that each fit 500 graphemes, in order, each naming the first and the one before (NIP-10)', async () => {
    const id = await newPost('Harbour diary');
    const response = await workspace.client.post<Target[]>(`/posts/${id}/publish-social`, {
      connectionIds: [connection.id],
      overrides: { [connection.id]: { text: longThreadText } },
      thread: true,
    });
    const [target] = response.body;
    expect(target).toMatchObject({ status: 'Published', thread: true });
    const ids = target!.parts!.map((part) => part.externalPostId);
    expect(ids.length).toBeGreaterThanOrEqual(3);
    expect(target!.externalPostId).toBe(ids[0]);

    const stored = await accepting.query({ ids });
    const notes = ids.map((noteId) => stored.find((note) => note.id === noteId)!);
    const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
    for (const [index, note] of notes.entries()) {
      expect(verifyEvent(note)).toBe(true);
      expect(note.pubkey).toBe(author);
      // The image link goes on a line of its own after the first part's text, outside the text's count.
      const text = index === 0 ? note.content.split('\n\n')[0]! : note.content;
      expect(Array.from(graphemes.segment(text)).length).toBeLessThanOrEqual(500);
      expect(text.endsWith(` (${index + 1}/${notes.length})`)).toBe(true);
      const previous = notes[index - 1];
      if (previous) expect(note.created_at).toBeGreaterThan(previous.created_at);
      const references = note.tags.filter((tag) => tag[0] === 'e').map((tag) => [tag[1], tag[3]]);
      const expected =
        index === 0
          ? []
          : index === 1
            ? [[ids[0], 'root']]
            : [
                [ids[0], 'root'],
                [ids[index - 1], 'reply'],
              ];
      expect(references).toEqual(expected);
    }
    expect(notes.map((note, index) => unnumbered(index === 0 ? note.content.split('\n\n')[0]! : note.content)).join(' ')).toBe(longThreadText);
    expect(target!.attempts.map((attempt) => [attempt.part, attempt.outcome])).toEqual(ids.map((_id, index) => [index + 1, 'published']));
  });
});
