import { describe, expect, it } from 'vitest';
import { Post } from '../../../src/adapters/database/entities/post.ts';
import { PublishTarget } from '../../../src/adapters/database/entities/publish-target.ts';
import { SocialConnection } from '../../../src/adapters/database/entities/social-connection.ts';
import { Webhook } from '../../../src/adapters/database/entities/webhook.ts';
import { WorkspaceEvent } from '../../../src/adapters/database/entities/workspace-event.ts';
import { newId } from '../../../src/adapters/database/new-id.ts';
import { recordPublicationCancelled } from '../../../src/domain/publishing/record-publication-cancelled.ts';
import { recordPublicationPlan, type PublicationPlanInput } from '../../../src/domain/publishing/record-publication-plan.ts';
import { settlePublication } from '../../../src/domain/publishing/settle-publication.ts';
import { WorkRefused } from '../../../src/domain/work-refused.ts';
import { failureTypes } from '../../../src/adapters/temporal/failure-types.ts';
import { createPostFixture } from '../../support/post-fixtures.ts';
import { useTestDatabase } from '../../support/test-database.ts';

// The publication's story in the database, told by the domain functions its workflow's activities run: plan (and
// re-plan), cancel, settle. Against a real PostgreSQL, each in a transaction as the activities run them.

const database = useTestDatabase();

async function postWithConnections(count: number) {
  const post = await createPostFixture(database.orm);
  const em = database.orm.em.fork();
  const connections = Array.from({ length: count }, (_, index) =>
    em.create(SocialConnection, {
      workspaceId: post.workspaceId,
      platform: 'mastodon',
      serverUrl: 'https://mastodon.example',
      accountName: `@a${index}`,
      accountId: `${index}`,
      credentialsSealed: 'sealed',
    }),
  );
  await em.flush();
  return { post, connectionIds: connections.map((connection) => connection.id) };
}

const plan = (input: PublicationPlanInput) => database.orm.em.fork().transactional((em) => recordPublicationPlan(em, input));
const later = new Date(Date.now() + 24 * 60 * 60 * 1000).toISOString();

describe('recordPublicationPlan', () => {
  it('when a publication is planned for later and then re-planned, then the post is scheduled at the new time and its targets keep their idempotency keys', async () => {
    const { post, connectionIds } = await postWithConnections(2);
    const publicationId = newId();
    const first = await plan({ postId: post.id, publicationId, publishAt: later, connectionIds, immediate: false });
    const keys = (await database.orm.em.fork().find(PublishTarget, { publicationId })).map((target) => target.idempotencyKey).sort();
    const moved = new Date(Date.parse(later) + 60_000).toISOString();
    const second = await plan({ postId: post.id, publicationId, publishAt: moved, connectionIds, immediate: false });

    expect(second).toEqual({ publishAt: moved, scheduled: true, targetIds: first.targetIds });
    const em = database.orm.em.fork();
    expect(await em.findOneOrFail(Post, post.id)).toMatchObject({ status: 'scheduled', scheduledAt: new Date(moved) });
    const targets = await em.find(PublishTarget, { publicationId });
    expect(targets.map((target) => target.idempotencyKey).sort()).toEqual(keys);
    expect(targets.map((target) => target.status)).toEqual(['Scheduled', 'Scheduled']);
  });

  it('when a connection was deleted, then the plan is refused as ConnectionNotFound and nothing is recorded', async () => {
    const { post } = await postWithConnections(0);
    const publicationId = newId();
    const refusal = await plan({ postId: post.id, publicationId, publishAt: later, connectionIds: [newId()], immediate: false }).catch(
      (error: unknown) => error,
    );

    expect(refusal).toBeInstanceOf(WorkRefused);
    expect(refusal).toMatchObject({ failureType: failureTypes.connectionNotFound, message: expect.stringContaining('no longer exists') });
    expect(await database.orm.em.fork().count(PublishTarget, { publicationId })).toBe(0);
    expect(await database.orm.em.fork().findOneOrFail(Post, post.id)).toMatchObject({ status: 'draft' });
  });

  it('when the post was deleted, then the plan is refused as PostDeleted', async () => {
    const refusal = await plan({ postId: newId(), publicationId: newId(), publishAt: later, connectionIds: [], immediate: true }).catch(
      (error: unknown) => error,
    );
    expect(refusal).toMatchObject({ failureType: failureTypes.postDeleted });
  });
});

describe('recordPublicationCancelled', () => {
  it('when a scheduled publication is cancelled, then its targets are Cancelled and the post is a draft again', async () => {
    const { post, connectionIds } = await postWithConnections(1);
    const publicationId = newId();
    await plan({ postId: post.id, publicationId, publishAt: later, connectionIds, immediate: false });
    await database.orm.em.fork().transactional((em) => recordPublicationCancelled(em, { postId: post.id, publicationId }));

    const em = database.orm.em.fork();
    expect(await em.findOneOrFail(Post, post.id)).toMatchObject({ status: 'draft', scheduledAt: null });
    expect((await em.find(PublishTarget, { publicationId })).map((target) => target.status)).toEqual(['Cancelled']);
  });
});

describe('settlePublication', () => {
  /** Settles a publication whose targets ended as `statuses`, twice (as a retry after its commit would). */
  async function settledWith(statuses: Array<'Published' | 'Failed'>, options: { plannedForLater?: boolean; madeDraft?: boolean } = {}) {
    const { post, connectionIds } = await postWithConnections(statuses.length);
    const publicationId = newId();
    const publishAt = options.plannedForLater ? later : new Date().toISOString();
    const { targetIds } = await plan({ postId: post.id, publicationId, publishAt, connectionIds, immediate: !options.plannedForLater });
    if (options.madeDraft) await database.orm.em.fork().nativeUpdate(Post, { id: post.id }, { status: 'draft' });
    await database.orm.em.fork().transactional(async (em) => {
      for (const [index, id] of targetIds.entries()) {
        await em.nativeUpdate(PublishTarget, { id }, { status: statuses[index]!, errorMessage: statuses[index] === 'Failed' ? 'refused' : null });
      }
    });
    const input = { postId: post.id, publicationId, publishedAt: new Date().toISOString(), targetIds, onlyIfStillScheduled: options.plannedForLater ?? false };
    const settled = await database.orm.em.fork().transactional((em) => settlePublication(em, input));
    const again = await database.orm.em.fork().transactional((em) => settlePublication(em, input));
    return { post: await database.orm.em.fork().findOneOrFail(Post, post.id), settled, again };
  }

  it('when one target of two was published, then the post is published and one post.published event is recorded, however often it is settled', async () => {
    const { post, settled, again } = await settledWith(['Published', 'Failed']);
    expect(settled).toEqual({ outcome: 'published', eventId: expect.any(String), subscribed: false });
    expect(again).toEqual(settled);
    expect(post.status).toBe('published');
    expect(await database.orm.em.fork().count(WorkspaceEvent, { postId: post.id, type: 'post.published' })).toBe(1);
  });

  it('when a publication planned for later is settled again after its commit, then it answers the same outcome and event, not a cancel', async () => {
    const { post, settled, again } = await settledWith(['Failed'], { plannedForLater: true });
    expect(settled).toEqual({ outcome: 'failed', eventId: expect.any(String), subscribed: false });
    expect(again).toEqual(settled);
    expect(post.status).toBe('failed');
  });

  it('when the post of a publication planned for later was made a draft and no platform has it, then it is cancelled and nothing is recorded', async () => {
    const { post, settled, again } = await settledWith(['Failed'], { plannedForLater: true, madeDraft: true });
    expect(settled).toEqual({ outcome: 'cancelled', eventId: null, subscribed: false });
    expect(again).toEqual(settled);
    expect(post.status).toBe('draft');
    expect(await database.orm.em.fork().count(WorkspaceEvent, { postId: post.id })).toBe(0);
  });

  it('when the post of a publication planned for later was made a draft but a platform has it, then it is published', async () => {
    const { post, settled } = await settledWith(['Published'], { plannedForLater: true, madeDraft: true });
    expect(settled).toEqual({ outcome: 'published', eventId: expect.any(String), subscribed: false });
    expect(post.status).toBe('published');
  });

  it('when an active webhook takes the event, then the settle says so (the event is handed over only then); a paused one or one taking other events does not count', async () => {
    const post = await createPostFixture(database.orm);
    const addWebhook = async (events: string, isActive: boolean) => {
      const em = database.orm.em.fork();
      em.create(Webhook, { workspaceId: post.workspaceId, url: 'https://receiver.example/hook', events, secretSealed: null, isActive });
      await em.flush();
    };
    await addWebhook('post.failed', true);
    await addWebhook('post.published', false);
    const input = { postId: post.id, publicationId: newId(), publishedAt: new Date().toISOString(), targetIds: [] };
    const settle = () => database.orm.em.fork().transactional((em) => settlePublication(em, input));
    expect(await settle()).toMatchObject({ outcome: 'published', subscribed: false });

    await addWebhook('post.failed, post.published', true);
    expect(await settle()).toMatchObject({ outcome: 'published', subscribed: true });
  });

  it('when every target failed, then the post is failed with every reason and a post.failed event is recorded', async () => {
    const { post, settled } = await settledWith(['Failed', 'Failed']);
    expect(settled).toEqual({ outcome: 'failed', eventId: expect.any(String), subscribed: false });
    expect(post).toMatchObject({ status: 'failed', failureReason: 'Publishing failed on every connection: mastodon: refused; mastodon: refused' });
  });
});
