import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import type { Schemas } from '../../../../src/api/schemas.ts';
import { startAtprotoPds, type AtprotoPds, type PdsAccount } from '../../../infra/atproto-pds.ts';
import { fetchImage } from '../../../support/images.ts';
import { startAppWithWorkspace } from '../../../support/app-with-workspace.ts';
import type { TestApp } from '../../../support/test-app.ts';
import type { TestWorkspace } from '../../../support/workspaces.ts';
import { longThreadText, unnumbered } from '../../../support/thread-text.ts';

// publish-social end to end (api, worker on the Temporal dev server, PostgreSQL) to a Bluesky account on the
// reference atproto PDS: what the record holds when read back, that one connection's session serves many posts
// (Bluesky allows 30 createSession calls per account in five minutes), and that a post whose answer was lost is
// found by its record key instead of being sent again.

type Target = Schemas['PublishTarget'];
type PostRecord = {
  text: string;
  langs: string[];
  createdAt: string;
  facets: { index: { byteStart: number; byteEnd: number }; features: Record<string, string>[] }[];
  embed: { images: { alt: string; aspectRatio: { width: number; height: number }; image: { ref: { $link: string }; mimeType: string; size: number } }[] };
  reply?: { root: { uri: string; cid: string }; parent: { uri: string; cid: string } };
};

let pds: AtprotoPds;
let maker: PdsAccount;
let alice: PdsAccount;
let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;
let connectionId: string;

beforeAll(async () => {
  let started;
  [pds, started] = await Promise.all([
    startAtprotoPds({ certPath: inject('devCertPath'), keyPath: inject('devKeyPath') }),
    startAppWithWorkspace({ env: { SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true', API_WAIT_SECONDS: '20' }, project: 'Launches' }),
  ]);
  ({ app, workspace, projectId } = started);
  [maker, alice] = await Promise.all([pds.createAccount('maker.test'), pds.createAccount('alice.test')]);
  const created = await workspace.client.post<Schemas['SocialConnection']>('/social-connections', {
    platform: 'bluesky',
    serviceUrl: pds.url,
    handle: maker.handle,
    appPassword: maker.appPassword,
    postLanguage: 'es',
  });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ accountName: maker.handle, postLanguage: 'es' });
  connectionId = created.body.id;
});
afterAll(async () => {
  await app?.stop();
  await pds?.close();
});

async function newPost(title: string, generate: boolean): Promise<string> {
  const id = (await workspace.client.post<{ id: string }>('/posts', { title, prompt: 'A rocket over a harbour at dawn', projectId })).body.id;
  if (generate) expect((await workspace.client.post(`/posts/${id}/generate`)).status).toBe(200);
  return id;
}

async function recordOf(uri: string): Promise<PostRecord> {
  return (await storedRecordOf(uri)).value;
}

async function storedRecordOf(uri: string): Promise<{ uri: string; cid: string; value: PostRecord }> {
  const [, , repo, collection, rkey] = uri.split('/');
  const answer = await pds.query('com.atproto.repo.getRecord', { repo: repo!, collection: collection!, rkey: rkey! });
  expect(answer.status).toBe(200);
  return (await answer.json()) as { uri: string; cid: string; value: PostRecord };
}

describe('publish-social to Bluesky on a real PDS', () => {
  it("when a post with an image is published, then the record read back has its text, facets, the connection's language, image, alt text, aspect ratio and time", async () => {
    const title = 'Launch 🚀 día #lanzamiento → https://example.com/a?b=c @alice.test';
    const id = await newPost(title, true);
    const before = Date.now();
    const response = await workspace.client.post<Target[]>(`/posts/${id}/publish-social`, { connectionIds: [connectionId] });
    expect(response.body.map((target) => target.status)).toEqual(['Published']);

    const record = await recordOf(response.body[0]!.externalPostId!);
    expect(record.text).toBe(title);
    const bytes = Buffer.from(record.text);
    expect(record.facets.map(({ index, features }) => [bytes.subarray(index.byteStart, index.byteEnd).toString(), features])).toEqual([
      ['#lanzamiento', [{ $type: 'app.bsky.richtext.facet#tag', tag: 'lanzamiento' }]],
      ['https://example.com/a?b=c', [{ $type: 'app.bsky.richtext.facet#link', uri: 'https://example.com/a?b=c' }]],
      ['@alice.test', [{ $type: 'app.bsky.richtext.facet#mention', did: alice.did }]],
    ]);
    expect(record.langs).toEqual(['es']);
    expect(Date.parse(record.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(record.createdAt)).toBeLessThanOrEqual(Date.now());

    const post = (await workspace.client.get<Schemas['Post']>(`/posts/${id}`)).body;
    const image = await fetchImage(post.imageUrl!);
    const [embedded] = record.embed.images;
    expect(embedded).toMatchObject({
      alt: 'A rocket over a harbour at dawn',
      aspectRatio: { width: image.width, height: image.height },
      image: { mimeType: 'image/png', size: image.bytes.length },
    });
    const blob = await pds.query('com.atproto.sync.getBlob', { did: maker.did, cid: embedded!.image.ref.$link });
    expect(Buffer.from(await blob.arrayBuffer()).equals(image.bytes)).toBe(true);
  });

  it('when 40 posts are published to one connection at once, then all 40 are published with the one session the connection was created with', async () => {
    const recordsBefore = pds.count('com.atproto.repo.createRecord');
    const ids = await Promise.all(Array.from({ length: 40 }, (_, index) => newPost(`Daily tip ${index + 1} #tips`, false)));
    const answers = await Promise.all(ids.map((id) => workspace.client.post<Target[]>(`/posts/${id}/publish-social`, { connectionIds: [connectionId] })));
    expect(answers.map((answer) => answer.body[0]?.status)).toEqual(ids.map(() => 'Published'));
    expect(pds.count('com.atproto.repo.createRecord') - recordsBefore).toBe(40);
    // The one createSession since the PDS started: POST /social-connections checking the app password.
    expect(pds.count('com.atproto.server.createSession')).toBe(1);
    expect(pds.count('com.atproto.server.refreshSession')).toBe(0);
  });

  it('when the answer to createRecord is lost after the PDS made the record, then the next attempt finds it, sends nothing, and the target ends Published with one record', async () => {
    const title = 'Ferry schedule for the weekend';
    const id = await newPost(title, false);
    const recordsBefore = pds.count('com.atproto.repo.createRecord');
    pds.dropAnswers('com.atproto.repo.createRecord', 1);
    const response = await workspace.client.post<Target[]>(`/posts/${id}/publish-social`, { connectionIds: [connectionId] });
    const [target] = response.body;
    expect(target!.status).toBe('Published');
    expect(target!.attempts.map(({ outcome, detail }) => [outcome, detail])).toEqual([
      ['unknown', expect.stringContaining('no answer came')],
      ['published', expect.stringContaining('not sent again')],
    ]);
    expect(Date.parse(target!.attempts[1]!.at)).toBeGreaterThanOrEqual(Date.parse(target!.attempts[0]!.nextAttemptAt!));
    expect(pds.count('com.atproto.repo.createRecord') - recordsBefore).toBe(1);

    const listed = await pds.query('com.atproto.repo.listRecords', { repo: maker.did, collection: 'app.bsky.feed.post', limit: '100' });
    const records = ((await listed.json()) as { records: { uri: string; value: PostRecord }[] }).records.filter((record) => record.value.text === title);
    expect(records.map((record) => record.uri)).toEqual([target!.externalPostId]);
  });

  it('when a 1,200-character text is published as a thread, then the PDS holds a chain of numbered records that each fit 300 graphemes, each replying to the thread root and the record before', async () => {
    const id = await newPost('Ferry diary', true);
    const response = await workspace.client.post<Target[]>(`/posts/${id}/publish-social`, {
      connectionIds: [connectionId],
      overrides: { [connectionId]: { text: longThreadText } },
      thread: true,
    });
    const [target] = response.body;
    expect(target).toMatchObject({ status: 'Published', thread: true });
    expect(target!.parts!.length).toBeGreaterThanOrEqual(4);
    expect(target!.externalPostId).toBe(target!.parts![0]!.externalPostId);

    const records = await Promise.all(target!.parts!.map((part) => storedRecordOf(part.externalPostId)));
    const [root] = records;
    const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
    for (const [index, record] of records.entries()) {
      expect(Array.from(graphemes.segment(record.value.text)).length).toBeLessThanOrEqual(300);
      expect(record.value.text.endsWith(` (${index + 1}/${records.length})`)).toBe(true);
      const parent = records[index - 1];
      expect(record.value.reply).toEqual(parent ? { root: { uri: root!.uri, cid: root!.cid }, parent: { uri: parent.uri, cid: parent.cid } } : undefined);
      // The image goes with the first part only.
      expect(record.value.embed !== undefined).toBe(index === 0);
    }
    expect(records.map((record) => unnumbered(record.value.text)).join(' ')).toBe(longThreadText);
  });
});
