import { describe, expect, it } from 'vitest';
import { Post } from '../../../src/adapters/database/entities/post.ts';
import { loadPost, loadPostForUpdate } from '../../../src/domain/posts/load-post.ts';
import { WorkRefused } from '../../../src/domain/work-refused.ts';
import { failureTypes } from '../../../src/adapters/temporal/failure-types.ts';
import { failureOf } from '../../support/failure-of.ts';
import { createPostFixture } from '../../support/post-fixtures.ts';
import { useTestDatabase } from '../../support/test-database.ts';

// What a workflow's activity reads of its post (plain SQL) and what a step that changes it locks (a managed entity):
// both read the same row, and a post deleted meanwhile ends the work for good.

const database = useTestDatabase();

describe('loading the post a workflow works on', () => {
  it('when the post has a brand kit, then the read gives the stored post and its kit', async () => {
    const stored = await createPostFixture(database.orm, { withBrandKit: true });
    const { post, brandKit } = await loadPost(database.orm.em.fork(), stored.id);
    expect(post).toMatchObject({
      id: stored.id,
      workspaceId: stored.workspaceId,
      projectId: stored.projectId,
      title: stored.title,
      prompt: stored.prompt,
      brandKitId: stored.brandKitId,
      artworkKey: null,
    });
    expect(post.createdAt.getTime()).toBe(stored.createdAt.getTime());
    expect(brandKit).toMatchObject({ id: stored.brandKitId, colors: { primary: '#224466' } });
  });

  it('when the post has no brand kit, then there is none to draw with', async () => {
    const stored = await createPostFixture(database.orm);
    expect((await loadPost(database.orm.em.fork(), stored.id)).brandKit).toBeNull();
  });

  it('when the post was deleted, then reading and locking it both refuse for good, naming the post', async () => {
    const stored = await createPostFixture(database.orm);
    await database.orm.em.fork().nativeDelete(Post, { id: stored.id });
    for (const load of [
      () => loadPost(database.orm.em.fork(), stored.id),
      () => database.orm.em.fork().transactional((em) => loadPostForUpdate(em, stored.id)),
    ]) {
      const refusal = await failureOf(load(), WorkRefused);
      expect(refusal).toMatchObject({ failureType: failureTypes.postDeleted, message: `Post ${stored.id} was deleted while the work was running.` });
    }
  });

  it('when a step locks the post, then it gets the managed entity, whose changes the transaction writes', async () => {
    const stored = await createPostFixture(database.orm);
    await database.orm.em.fork().transactional(async (em) => {
      const post = await loadPostForUpdate(em, stored.id);
      post.failureReason = 'changed under the lock';
    });
    expect((await loadPost(database.orm.em.fork(), stored.id)).post.failureReason).toBe('changed under the lock');
  });
});
