import { mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MediaWait } from '../../activities/publish-to-target.ts';
import { createActivities } from '../../activities/index.ts';
import { Post } from '../../src/adapters/database/entities/post.ts';
import { PublishTarget } from '../../src/adapters/database/entities/publish-target.ts';
import { PublishTargetPart } from '../../src/adapters/database/entities/publish-target-part.ts';
import { graphemeCount } from '../../src/adapters/social/shorten-text.ts';
import { PublishTargetAttempt } from '../../src/adapters/database/entities/publish-target-attempt.ts';
import { createFilesystemStorage } from '../../src/adapters/object-storage/filesystem-storage.ts';
import { createMastodonConnector } from '../../src/adapters/social/mastodon/mastodon-connector.ts';
import type { SocialConnector } from '../../src/adapters/social/social-connector.ts';
import { failureTypes } from '../../src/adapters/temporal/failure-types.ts';
import { unknownNotRetriedDetail, vanishedDetail } from '../../src/domain/publishing/attempt-outcome.ts';
import type { Deps } from '../../src/domain/deps.ts';
import { recordPublishAttempt } from '../../src/domain/publishing/record-publish-attempt.ts';
import { createLogger } from '../../src/logger.ts';
import { assembleDeps } from '../../src/services.ts';
import { startMastodonServer, type MastodonServer } from '../fakes/mastodon-server.ts';
import { failureOf } from '../support/failure-of.ts';
import { makeImage } from '../support/images.ts';
import { createPostFixture, mastodonConnectionFixture } from '../support/post-fixtures.ts';
import { testConfig } from '../support/test-config.ts';
import { useTestDatabase } from '../support/test-database.ts';
import { longThreadText, unnumbered } from '../support/thread-text.ts';
import { infrastructure } from '../support/infrastructure.ts';

// The publish activity's attempts, each run as Temporal would run attempt number N (MockActivityEnvironment), on a
// real database and the Mastodon fake: what it records, what it does after an attempt that left no record, and what
// it does on a platform that can neither look a post up nor promise that sending it again is harmless.

const database = useTestDatabase();
const directory = mkdtempSync(join(tmpdir(), 'publish-attempts-'));
let mastodon: MastodonServer;
let deps: Deps;

const mastodonConnector = createMastodonConnector({ allowPrivateNetworks: true });
// A platform with no findPublished and no idempotency of its own (as some are).
const withoutGuarantee: SocialConnector = {
  platform: 'mastodon',
  declaration: { ...mastodonConnector.declaration, retriesNeverDuplicate: { guaranteed: false, how: 'Nothing prevents a second post.' } },
  verify: (credentials) => mastodonConnector.verify(credentials),
  preview: (post) => mastodonConnector.preview(post),
  publish: (credentials, post, sessions) => mastodonConnector.publish(credentials, post, sessions),
};

beforeAll(async () => {
  mastodon = await startMastodonServer();
  deps = assembleDeps(testConfig(database.url), {
    orm: database.orm,
    storage: createFilesystemStorage({ directory, urlSigningSecret: 'x'.repeat(32), defaultTtlSeconds: 60, baseUrl: () => 'http://test' }),
    logger: createLogger({ level: 'silent', name: 'test' }),
    temporal: new Client({ connection: Connection.lazy({ address: infrastructure.temporalAddress }) }),
  });
});
beforeEach(() => {
  mastodon.statuses.length = 0;
  mastodon.requests.length = 0;
});
afterAll(async () => {
  await mastodon?.close();
  rmSync(directory, { recursive: true, force: true });
});

/**
 * A post and a pending target to a Mastodon connection, written straight to the database; with `thread`, the target
 * is sent `text` as a thread and the post has an image.
 */
async function pendingTarget(thread?: { text: string }): Promise<string> {
  const post = await createPostFixture(database.orm);
  const em = database.orm.em.fork();
  if (thread) {
    const imageKey = `images/${post.id}.png`;
    await deps.storage.put(imageKey, await makeImage('png', '#336699', 32), 'image/png');
    await em.nativeUpdate(Post, { id: post.id }, { imageKey });
  }
  const connection = mastodonConnectionFixture(em, post, mastodon, deps.secrets);
  const target = em.create(PublishTarget, {
    postId: post.id,
    connectionId: connection.id,
    platform: 'mastodon',
    publicationId: randomUUID(),
    status: 'Pending',
    idempotencyKey: randomUUID(),
    ...(thread ? { thread: true, textOverride: thread.text } : {}),
  });
  await em.flush();
  return target.id;
}

/** Runs attempt number `attempt` of the activity for the target, with `connector` for Mastodon. */
function runAttempt(targetId: string, attempt: number, connector: SocialConnector = mastodonConnector): Promise<MediaWait | undefined> {
  const activities = createActivities({ ...deps, social: { ...deps.social, mastodon: connector } });
  // The failures are what the tests expect: not logged.
  return new MockActivityEnvironment({ attempt }, { logger: new DefaultLogger('ERROR') }).run(activities.publishToTarget, {
    targetId,
    publishedAt: new Date().toISOString(),
  });
}

const attemptsOf = (targetId: string) => database.orm.em.fork().find(PublishTargetAttempt, { targetId }, { orderBy: { attempt: 'asc', part: 'asc' } });
const partsOf = (targetId: string) => database.orm.em.fork().find(PublishTargetPart, { targetId }, { orderBy: { part: 'asc' } });
const statusRequests = () => mastodon.requests.filter((request) => request.path === '/api/v1/statuses');

describe('publishToTarget attempts', () => {
  it('when a platform that cannot look a post up and promises nothing loses the answer to the post, then it is not sent again and the target fails asking to check', async () => {
    const targetId = await pendingTarget();
    mastodon.script('statuses', [{ dropped: true }]);
    const failure = await failureOf(runAttempt(targetId, 1, withoutGuarantee), ApplicationFailure);
    expect(failure).toMatchObject({ type: failureTypes.socialOutcomeUnknown, nonRetryable: true });
    expect(await attemptsOf(targetId)).toMatchObject([{ attempt: 1, outcome: 'unknown', detail: unknownNotRetriedDetail, nextAttemptAt: null }]);
    expect(mastodon.statuses).toHaveLength(1);
  });

  it('when the attempt before left no record (its worker died), then it is recorded unknown and, on a platform whose key prevents a second post, the post is sent once', async () => {
    const targetId = await pendingTarget();
    await runAttempt(targetId, 2);
    const [vanished, published] = await attemptsOf(targetId);
    expect(vanished).toMatchObject({ attempt: 1, outcome: 'unknown', detail: vanishedDetail, nextAttemptAt: published!.attemptedAt });
    expect(published).toMatchObject({ attempt: 2, outcome: 'published', nextAttemptAt: null });
    expect(await database.orm.em.fork().findOneOrFail(PublishTarget, targetId)).toMatchObject({ status: 'Published' });
    expect(mastodon.statuses).toHaveLength(1);
  });

  it('when the attempt before left no record on a platform that promises nothing, then nothing is sent and the target fails asking to check', async () => {
    const targetId = await pendingTarget();
    const failure = await failureOf(runAttempt(targetId, 2, withoutGuarantee), ApplicationFailure);
    expect(failure).toMatchObject({ type: failureTypes.socialOutcomeUnknown, nonRetryable: true });
    expect((await attemptsOf(targetId)).map(({ attempt, outcome }) => [attempt, outcome])).toEqual([
      [1, 'unknown'],
      [2, 'unknown'],
    ]);
    expect(statusRequests()).toHaveLength(0);
  });

  it('when the unanswered attempt began longer ago than Mastodon remembers its key, then the post is not sent again and the target fails asking to check', async () => {
    const targetId = await pendingTarget();
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60_000);
    await recordPublishAttempt(database.orm.em.fork(), {
      targetId,
      attempt: 1,
      attemptedAt: twoHoursAgo,
      outcome: 'unknown',
      detail: 'The post was sent but no answer came.',
      nextAttemptAt: new Date(twoHoursAgo.getTime() + 5_000),
    });
    const failure = await failureOf(runAttempt(targetId, 2), ApplicationFailure);
    expect(failure).toMatchObject({ type: failureTypes.socialOutcomeUnknown, nonRetryable: true });
    expect((await attemptsOf(targetId))[1]).toMatchObject({ attempt: 2, outcome: 'unknown', detail: unknownNotRetriedDetail, nextAttemptAt: null });
    expect(statusRequests()).toHaveLength(0);
  });

  it('when the same attempt runs twice, then its first record stands', async () => {
    const targetId = await pendingTarget();
    mastodon.script('statuses', [{ status: 422, error: 'Validation failed: Text character limit of 500 exceeded' }, { status: 503 }]);
    await failureOf(runAttempt(targetId, 1), ApplicationFailure);
    await failureOf(runAttempt(targetId, 1), ApplicationFailure);
    expect(await attemptsOf(targetId)).toMatchObject([
      {
        attempt: 1,
        outcome: 'refused',
        detail: 'Mastodon refused the post (422): Validation failed: Text character limit of 500 exceeded',
        nextAttemptAt: null,
      },
    ]);
  });
});

describe('publishToTarget threads', () => {
  it('when a 1,200-character text is published as a thread, then Mastodon gets a chain of numbered statuses that each fit, each replying to the one before, the image on the first', async () => {
    expect(longThreadText.length).toBeGreaterThanOrEqual(1_150);
    const targetId = await pendingTarget({ text: longThreadText });
    await runAttempt(targetId, 1);

    const statuses = mastodon.statuses;
    expect(statuses.length).toBeGreaterThanOrEqual(3);
    for (const [index, status] of statuses.entries()) {
      expect(graphemeCount(status.text, 23)).toBeLessThanOrEqual(500);
      expect(status.text.endsWith(` (${index + 1}/${statuses.length})`)).toBe(true);
      expect(status.inReplyToId).toBe(index === 0 ? null : statuses[index - 1]!.id);
      expect(status.media).toHaveLength(index === 0 ? 1 : 0);
    }
    expect(statuses.map((status) => unnumbered(status.text)).join(' ')).toBe(longThreadText);

    const target = await database.orm.em.fork().findOneOrFail(PublishTarget, targetId);
    expect(target).toMatchObject({ status: 'Published', externalPostId: statuses[0]!.id, externalUrl: statuses[0]!.url });
    expect((await partsOf(targetId)).map(({ part, externalPostId }) => [part, externalPostId])).toEqual(
      statuses.map((status, index) => [index + 1, status.id]),
    );
    expect((await attemptsOf(targetId)).map(({ attempt, part, outcome }) => [attempt, part, outcome])).toEqual(
      statuses.map((_status, index) => [1, index + 1, 'published']),
    );
    // Each part its own key, derived from the target's, so Mastodon's Idempotency-Key guards each part.
    const keys = statuses.map((status) => status.idempotencyKey);
    expect(new Set(keys).size).toBe(statuses.length);
    expect(keys.slice(1)).toEqual(keys.slice(1).map((_key, index) => `${keys[0]}.${index + 2}`));
  });

  it('when part 3 fails once (503), then the next attempt goes on at part 3, replying to part 2, and no part is posted twice', async () => {
    const targetId = await pendingTarget({ text: longThreadText });
    mastodon.script('statuses', [{}, {}, { status: 503 }]);
    await failureOf(runAttempt(targetId, 1), ApplicationFailure);
    expect(mastodon.statuses).toHaveLength(2);
    expect((await attemptsOf(targetId)).map(({ attempt, part, outcome }) => [attempt, part, outcome])).toEqual([
      [1, 1, 'published'],
      [1, 2, 'published'],
      [1, 3, 'unavailable'],
    ]);
    expect(await database.orm.em.fork().findOneOrFail(PublishTarget, targetId)).toMatchObject({ status: 'Publishing', externalPostId: null });

    await runAttempt(targetId, 2);
    const statuses = mastodon.statuses;
    expect(statuses.length).toBeGreaterThanOrEqual(3);
    expect(statuses.map((status) => unnumbered(status.text)).join(' ')).toBe(longThreadText);
    expect(statuses.map((status) => status.inReplyToId)).toEqual([null, ...statuses.slice(0, -1).map((status) => status.id)]);
    // Part 1 and 2 were not sent again; part 3 was sent twice, once refused.
    expect(statusRequests()).toHaveLength(statuses.length + 1);
    const attempts = (await attemptsOf(targetId)).map(({ attempt, part, outcome }) => [attempt, part, outcome]);
    expect(attempts.slice(3)).toEqual(statuses.slice(2).map((_status, index) => [2, index + 3, 'published']));
    expect(await database.orm.em.fork().findOneOrFail(PublishTarget, targetId)).toMatchObject({ status: 'Published', externalPostId: statuses[0]!.id });
  });

  it('when the attempt before stopped without a record after part 2, then part 3 is recorded unknown for it and sent under its own key, which Mastodon answers with one status', async () => {
    const targetId = await pendingTarget({ text: longThreadText });
    // Attempt 1 posts part 1 and 2, and part 3 reaches Mastodon, whose answer is lost; its worker then dies before
    // recording the failure (simulated by deleting that record).
    mastodon.script('statuses', [{}, {}, { dropped: true }]);
    await failureOf(runAttempt(targetId, 1), ApplicationFailure);
    await database.orm.em.fork().nativeDelete(PublishTargetAttempt, { targetId, part: 3 });
    expect(mastodon.statuses).toHaveLength(3);

    await runAttempt(targetId, 2);
    const attempts = (await attemptsOf(targetId)).map(({ attempt, part, outcome, detail }) => [attempt, part, outcome, detail]);
    expect(attempts.slice(0, 4)).toEqual([
      [1, 1, 'published', expect.any(String)],
      [1, 2, 'published', expect.any(String)],
      [1, 3, 'unknown', vanishedDetail],
      [2, 3, 'published', expect.any(String)],
    ]);
    const statuses = mastodon.statuses;
    expect(statuses.map((status) => unnumbered(status.text)).join(' ')).toBe(longThreadText);
    expect(statuses.map((status) => status.inReplyToId)).toEqual([null, ...statuses.slice(0, -1).map((status) => status.id)]);
  });
});
