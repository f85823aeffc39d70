import { randomBytes, randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it, inject } from 'vitest';
import { createSecretBox } from '../../../../src/adapters/crypto/secret-box.ts';
import { SocialConnection } from '../../../../src/adapters/database/entities/social-connection.ts';
import { Workspace } from '../../../../src/adapters/database/entities/workspace.ts';
import { openDatabase, type Database } from '../../../../src/adapters/database/orm.ts';
import { createBlueskyConnector } from '../../../../src/adapters/social/bluesky/bluesky-connector.ts';
import { connectionSessions } from '../../../../src/adapters/social/connection-sessions.ts';
import { SocialOutcomeUnknownError, SocialRejectedError, type BlueskyCredentials, type SocialPost } from '../../../../src/adapters/social/social-connector.ts';
import { startAtprotoPds, type AtprotoPds, type PdsAccount } from '../../../infra/atproto-pds.ts';
import { eventually } from '../../../support/eventually.ts';
import { foundPost } from '../../../support/found-post.ts';
import { failureOf } from '../../../support/failure-of.ts';
import { makeImage } from '../../../support/images.ts';
import { makeVideo, socialVideoOf } from '../../../support/video-files.ts';
import { createTestDatabase } from '../../../support/test-database.ts';

// The Bluesky connector against the reference atproto PDS (@atproto/dev-env) behind an HTTPS proxy that counts the
// calls: what the record looks like when read back, and the session's life (created once, reused, refreshed,
// created again when the refresh token is refused, refreshed once when two workers need it at once), and an answer
// the proxy holds back after the PDS made the record. What a real PDS cannot be made to do (429, 5xx, slow answers)
// is in bluesky-connector.test.ts, against a fake.

type PostRecord = {
  text: string;
  createdAt: string;
  langs?: string[];
  facets?: { index: { byteStart: number; byteEnd: number }; features: Record<string, string>[] }[];
  embed?: { images: { alt: string; aspectRatio: { width: number; height: number }; image: { ref: { $link: string }; mimeType: string; size: number } }[] };
};

type VideoEmbed = { $type: string; alt?: string; aspectRatio: object; video: { ref: { $link: string }; mimeType: string; size: number } };

let pds: AtprotoPds;
let maker: PdsAccount;
let alice: PdsAccount;
let credentials: BlueskyCredentials;
let database: { url: string; drop: () => Promise<void> };
let orm: Database;
let otherOrm: Database;
let workspaceId: string;
let png: Buffer;
const secrets = createSecretBox([randomBytes(32)]);
const connector = createBlueskyConnector({ allowPrivateNetworks: true });

beforeAll(async () => {
  [pds, database, png] = await Promise.all([
    startAtprotoPds({ certPath: inject('devCertPath'), keyPath: inject('devKeyPath') }),
    createTestDatabase(),
    makeImage('png', '#ff6633', 96),
  ]);
  [maker, alice] = await Promise.all([pds.createAccount('maker.test'), pds.createAccount('alice.test')]);
  credentials = { platform: 'bluesky', serviceUrl: pds.url, handle: maker.handle, appPassword: maker.appPassword };
  [orm, otherOrm] = await Promise.all([openDatabase(database.url, 4), openDatabase(database.url, 4)]);
  const em = orm.em.fork();
  workspaceId = em.create(Workspace, { name: 'Sessions', plan: 'growth' }).id;
  await em.flush();
});
afterAll(async () => {
  await Promise.all([orm?.close(), otherOrm?.close()]);
  await Promise.all([pds?.close(), database?.drop()]);
});
beforeEach(() => pds.resetCounts());

function postWith(overrides: Partial<SocialPost> = {}): SocialPost {
  return { text: 'Spring collection is here', idempotencyKey: randomUUID(), ...overrides };
}

async function recordOf(uri: string): Promise<PostRecord> {
  const [, , repo, collection, rkey] = uri.split('/');
  const answer = await pds.query('com.atproto.repo.getRecord', { repo: repo!, collection: collection!, rkey: rkey! });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { value: PostRecord }).value;
}

/** The database's clock, to tell statements that started after now from those before. */
async function databaseNow(): Promise<Date> {
  const [row] = await orm.em.getConnection().execute<Array<{ now: Date }>>('select clock_timestamp() as now');
  return row!.now;
}

/** How many sessions of this test's database last tried to take a session lease at or after `since`. */
async function leaseAttemptsSince(since: Date): Promise<number> {
  const [row] = await orm.em
    .getConnection()
    .execute<Array<{ tried: string }>>(
      "select count(*) as tried from pg_stat_activity where datname = current_database() and query like '%update social_connections set session_lease_owner%' and query_start >= ?",
      [since],
    );
  return Number(row!.tried);
}

/** The text each facet's byte range cuts out, with its feature. */
function facetsRead(record: PostRecord): { cut: string; feature: Record<string, string> }[] {
  const bytes = Buffer.from(record.text, 'utf8');
  return (record.facets ?? []).map(({ index, features }) => ({ cut: bytes.subarray(index.byteStart, index.byteEnd).toString('utf8'), feature: features[0]! }));
}

/** A connection as POST /social-connections stores it: credentials and the verify's session, sealed. */
async function newConnection(): Promise<string> {
  const { session } = await connector.verify(credentials);
  const em = orm.em.fork();
  const connection = em.create(SocialConnection, {
    workspaceId,
    platform: 'bluesky',
    serverUrl: pds.url,
    accountName: maker.handle,
    accountId: maker.did,
    credentialsSealed: secrets.seal(JSON.stringify(credentials)),
    sessionSealed: session ? secrets.seal(session) : null,
  });
  await em.flush();
  return connection.id;
}

async function storedSession(connectionId: string): Promise<{ accessJwt: string; refreshJwt: string }> {
  const text = await connectionSessions(orm, secrets, connectionId).read();
  return JSON.parse(text!) as { accessJwt: string; refreshJwt: string };
}

/**
 * Stores an access token in place of the connection's that says it expires at `exp` (epoch seconds). The PDS would
 * refuse it (it is not signed by the PDS): only the connector's reading of `exp` decides whether it is sent.
 */
async function replaceAccessToken(connectionId: string, exp: number): Promise<void> {
  const session = await storedSession(connectionId);
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const accessJwt = `${part({ alg: 'HS256', typ: 'at+jwt' })}.${part({ scope: 'com.atproto.access', exp })}.${part({ forged: true })}`;
  await orm.em.fork().nativeUpdate(SocialConnection, connectionId, { sessionSealed: secrets.seal(JSON.stringify({ ...session, accessJwt })) });
}

const inMinutes = (minutes: number) => Math.floor(Date.now() / 1000) + minutes * 60;

describe('Bluesky connector on a real PDS: the record', () => {
  it('when a post with an image, a tag, a link and a mention is published, then the record read back has them all, with facets cutting out exactly each', async () => {
    const text = 'Launch 🚀 día #lanzamiento → https://example.com/a?b=c @alice.test';
    const before = Date.now();
    const published = await connector.publish(
      credentials,
      postWith({ text, language: 'es', image: { bytes: png, contentType: 'image/png', alt: 'An orange square' } }),
    );
    const record = await recordOf(published.externalPostId);

    expect(record.text).toBe(text);
    expect(facetsRead(record)).toEqual([
      { cut: '#lanzamiento', feature: { $type: 'app.bsky.richtext.facet#tag', tag: 'lanzamiento' } },
      { cut: 'https://example.com/a?b=c', feature: { $type: 'app.bsky.richtext.facet#link', uri: 'https://example.com/a?b=c' } },
      { cut: '@alice.test', feature: { $type: 'app.bsky.richtext.facet#mention', did: alice.did } },
    ]);
    expect(record.langs).toEqual(['es']);
    expect(Date.parse(record.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(record.createdAt)).toBeLessThanOrEqual(Date.now());
    const [image] = record.embed!.images;
    expect(image).toMatchObject({ alt: 'An orange square', aspectRatio: { width: 96, height: 96 }, image: { mimeType: 'image/png', size: png.length } });
    const blob = await pds.query('com.atproto.sync.getBlob', { did: maker.did, cid: image!.image.ref.$link });
    expect(Buffer.from(await blob.arrayBuffer()).equals(png)).toBe(true);
    expect(published.url).toBe(`https://bsky.app/profile/${maker.handle}/post/${published.externalPostId.split('/').at(-1)}`);
  });

  it('when the text has a numeric #1, an unknown handle and trailing punctuation, then those stay text and the facets leave the punctuation out', async () => {
    const text = 'Our #1 pick, by @nobody.test: https://example.com/x. Read it (#launch!)';
    const record = await recordOf((await connector.publish(credentials, postWith({ text }))).externalPostId);
    expect(facetsRead(record)).toEqual([{ cut: 'https://example.com/x', feature: { $type: 'app.bsky.richtext.facet#link', uri: 'https://example.com/x' } }]);
    expect(record).not.toHaveProperty('langs');
  });

  it('when the text is longer than 300 graphemes, then it is cut before a link that would not fit whole', async () => {
    const text = `${'día '.repeat(70)}https://example.com/${'x'.repeat(40)} #after`;
    const record = await recordOf((await connector.publish(credentials, postWith({ text }))).externalPostId);
    expect(record.text).toBe(`${'día '.repeat(70).trimEnd()}…`);
    expect(record).not.toHaveProperty('facets');
  });

  it('when 300 graphemes are more than 3000 bytes, then the text is cut to fit the bytes too', async () => {
    const family = '👩‍👩‍👧‍👦';
    const record = await recordOf((await connector.publish(credentials, postWith({ text: family.repeat(300) }))).externalPostId);
    expect(record.text).toBe(`${family.repeat(Math.floor((3_000 - Buffer.byteLength('…')) / Buffer.byteLength(family)))}…`);
  });

  it('when the image is over 2,000,000 bytes, then it is re-encoded as a JPEG that the PDS takes', async () => {
    const large = await sharp(randomBytes(1800 * 1800 * 3), { raw: { width: 1800, height: 1800, channels: 3 } })
      .png()
      .toBuffer();
    expect(large.length).toBeGreaterThan(2_000_000);
    const record = await recordOf(
      (await connector.publish(credentials, postWith({ image: { bytes: large, contentType: 'image/png', alt: 'Static' } }))).externalPostId,
    );
    const [image] = record.embed!.images;
    expect(image!.image.mimeType).toBe('image/jpeg');
    expect(image!.image.size).toBeLessThanOrEqual(2_000_000);
    expect(image!.aspectRatio).toEqual({ width: 1800, height: 1800 });
  });

  it('when a post has a video, then its record embeds app.bsky.embed.video: the blob the PDS took, the alt text and the shape', async () => {
    const mp4 = makeVideo({ width: 108, height: 192 });
    const published = await connector.publish(credentials, postWith({ video: socialVideoOf(mp4, { alt: 'A test pattern', width: 1080, height: 1920 }) }));
    const { embed } = (await recordOf(published.externalPostId)) as unknown as { embed: VideoEmbed };
    expect(embed).toMatchObject({
      $type: 'app.bsky.embed.video',
      alt: 'A test pattern',
      aspectRatio: { width: 1080, height: 1920 },
      video: { mimeType: 'video/mp4', size: mp4.length },
    });
    const blob = await pds.query('com.atproto.sync.getBlob', { did: maker.did, cid: embed.video.ref.$link });
    expect(Buffer.from(await blob.arrayBuffer()).equals(mp4)).toBe(true);
  });

  it('when one publication is published twice, then the second finds the first record', async () => {
    const post = postWith();
    const first = await connector.publish(credentials, post);
    expect(await connector.publish(credentials, post)).toEqual(first);
    expect(pds.count('com.atproto.repo.createRecord')).toBe(1);
  });

  it('when the answer to createRecord times out after the PDS made the record, then the outcome is unknown and findPublished finds that record', async () => {
    const impatient = createBlueskyConnector({ allowPrivateNetworks: true, timeoutMs: 1_000 });
    const post = postWith({ text: 'Answer lost in the fog' });
    pds.dropAnswers('com.atproto.repo.createRecord', 1, 'silence');
    const error = await failureOf(impatient.publish(credentials, post), SocialOutcomeUnknownError);
    expect(error.message).toBe('Bluesky server did not answer within 1 s after the request was sent');

    const found = foundPost(await connector.findPublished!(credentials, post.idempotencyKey));
    expect((await recordOf(found.externalPostId)).text).toBe('Answer lost in the fog');
    expect(pds.count('com.atproto.repo.createRecord')).toBe(1);
  });

  it('when the handle is written as a mention, then verify names the account by handle and gives its DID and a session', async () => {
    const account = await connector.verify({ ...credentials, handle: `@${maker.handle}` });
    expect(account).toEqual({ accountName: maker.handle, accountId: maker.did, session: expect.any(String) });
  });

  it("when the app password is wrong, then it is rejected with the PDS's reason", async () => {
    const error = await failureOf(connector.verify({ ...credentials, appPassword: 'aaaa-bbbb-cccc-dddd' }), SocialRejectedError);
    expect(error.reason).toBe('Bluesky rejected the handle or app password (401 AuthenticationRequired): Invalid identifier or password');
  });
});

describe("A connection's session store", () => {
  it('when two processes renew at once, then the second waits for the first and is given what it stored', async () => {
    const connectionId = await newConnection();
    let releaseFirst = () => {};
    const firstHolds = new Promise<void>((resolveHold) => (releaseFirst = resolveHold));
    const seenBySecond: (string | undefined)[] = [];
    let firstStarted = () => {};
    const firstRunning = new Promise<void>((resolveStarted) => (firstStarted = resolveStarted));

    const first = connectionSessions(orm, secrets, connectionId).renew(async () => {
      firstStarted();
      await firstHolds;
      return 'renewed by the first';
    });
    await firstRunning;
    const secondStarts = await databaseNow();
    const second = connectionSessions(otherOrm, secrets, connectionId).renew((stored) => {
      seenBySecond.push(stored);
      return Promise.resolve(stored ?? 'renewed by the second');
    });
    // The second has tried to take the session lease the first holds (PostgreSQL shows its statement) and waits,
    // holding no connection: it has not been given anything yet.
    await eventually(async () => expect(await leaseAttemptsSince(secondStarts)).toBeGreaterThan(0));
    expect(seenBySecond).toEqual([]);
    releaseFirst();

    expect(await Promise.all([first, second])).toEqual(['renewed by the first', 'renewed by the first']);
    expect(seenBySecond).toEqual(['renewed by the first']);
  });
  it('when the connection is deleted while its session is being renewed, then the delete does not wait for the platform', async () => {
    const connectionId = await newConnection();
    let releaseRenewal = () => {};
    const platformAnswers = new Promise<void>((resolveAnswer) => (releaseRenewal = resolveAnswer));
    let renewalStarted = () => {};
    const renewing = new Promise<void>((resolveStarted) => (renewalStarted = resolveStarted));
    const renewal = connectionSessions(orm, secrets, connectionId).renew(async () => {
      renewalStarted();
      await platformAnswers;
      return 'renewed';
    });
    await renewing;

    // The platform has not answered; the delete must finish anyway (it used to wait on the renewal's row lock).
    const deleted = await otherOrm.em.fork().nativeDelete(SocialConnection, connectionId);
    expect(deleted).toBe(1);
    releaseRenewal();
    expect(await renewal).toBe('renewed');
    expect(await connectionSessions(orm, secrets, connectionId).read()).toBeUndefined();
  });
});

describe('Bluesky connector on a real PDS: the session', () => {
  it('when a connection is verified, then its session is reused by every publication', async () => {
    const connectionId = await newConnection();
    const sessions = connectionSessions(orm, secrets, connectionId);
    for (let index = 0; index < 3; index += 1) await connector.publish(credentials, postWith(), sessions);
    expect(pds.count('com.atproto.server.createSession')).toBe(1);
    expect(pds.count('com.atproto.server.refreshSession')).toBe(0);
  });

  it('when the access token is about to expire, then the session is refreshed once, stored, and reused', async () => {
    const connectionId = await newConnection();
    await replaceAccessToken(connectionId, inMinutes(2));
    const before = await storedSession(connectionId);
    await connector.publish(credentials, postWith(), connectionSessions(orm, secrets, connectionId));
    const after = await storedSession(connectionId);
    expect(after.accessJwt).not.toBe(before.accessJwt);
    expect(after.refreshJwt).not.toBe(before.refreshJwt);

    await connector.publish(credentials, postWith(), connectionSessions(orm, secrets, connectionId));
    expect(pds.count('com.atproto.server.createSession')).toBe(1);
    expect(pds.count('com.atproto.server.refreshSession')).toBe(1);
    expect(await storedSession(connectionId)).toEqual(after);
  });

  it('when the refresh token is refused, then a new session is created from the app password', async () => {
    const connectionId = await newConnection();
    const { refreshJwt } = await storedSession(connectionId);
    expect((await pds.procedure('com.atproto.server.deleteSession', refreshJwt)).status).toBe(200);
    await replaceAccessToken(connectionId, inMinutes(-1));

    await connector.publish(credentials, postWith(), connectionSessions(orm, secrets, connectionId));
    expect(pds.count('com.atproto.server.refreshSession')).toBe(1);
    expect(pds.count('com.atproto.server.createSession')).toBe(2);
    expect((await storedSession(connectionId)).refreshJwt).not.toBe(refreshJwt);
  });

  it('when two workers publish three posts each while the token expires, then the session is refreshed once', async () => {
    const connectionId = await newConnection();
    await replaceAccessToken(connectionId, inMinutes(-1));
    // Two processes: connectors of their own, each with its own database pool (connected, so that neither starts late).
    const [first, second] = [createBlueskyConnector({ allowPrivateNetworks: true }), createBlueskyConnector({ allowPrivateNetworks: true })];
    await Promise.all([orm.em.fork().execute('select 1'), otherOrm.em.fork().execute('select 1')]);
    const published = await Promise.all([
      ...[1, 2, 3].map(() => first.publish(credentials, postWith(), connectionSessions(orm, secrets, connectionId))),
      ...[1, 2, 3].map(() => second.publish(credentials, postWith(), connectionSessions(otherOrm, secrets, connectionId))),
    ]);
    expect(new Set(published.map(({ externalPostId }) => externalPostId)).size).toBe(6);
    expect(pds.count('com.atproto.server.refreshSession')).toBe(1);
    expect(pds.count('com.atproto.server.createSession')).toBe(1);
  });

  it('when the PDS refuses an access token that looked good, then the session is refreshed and the call sent again', async () => {
    const connectionId = await newConnection();
    await replaceAccessToken(connectionId, inMinutes(60));
    const published = await connector.publish(
      credentials,
      postWith({ image: { bytes: png, contentType: 'image/png', alt: 'Orange' } }),
      connectionSessions(orm, secrets, connectionId),
    );
    expect((await recordOf(published.externalPostId)).embed?.images).toHaveLength(1);
    expect(pds.count('com.atproto.server.refreshSession')).toBe(1);
    expect(pds.count('com.atproto.repo.uploadBlob')).toBe(2);
    expect(pds.count('com.atproto.server.createSession')).toBe(1);
  });
});
