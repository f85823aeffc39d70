import { describe, expect, it } from 'vitest';
import { Post } from '../../../src/adapters/database/entities/post.ts';
import { WorkspaceEvent } from '../../../src/adapters/database/entities/workspace-event.ts';
import { markPostFailed } from '../../../src/domain/posts/mark-post-failed.ts';
import { createPostFixture } from '../../support/post-fixtures.ts';
import { useTestDatabase } from '../../support/test-database.ts';

// A failure's reason may quote another server (the image provider, a social platform): its words are stored for
// people to read, whatever bytes they hold.

const database = useTestDatabase();

describe('marking a post failed', () => {
  it('when the reason holds NUL, an unpaired surrogate and runs long, then the post and its event keep a readable, cut reason', async () => {
    const post = await createPostFixture(database.orm);
    const reason = `Stability AI refused the request (400): bad\u0000prompt \ud800 ${'x'.repeat(3_000)}`;
    const { eventId } = await database.orm.em.fork().transactional((em) => markPostFailed(em, { postId: post.id, reason, sourceId: `generation-${post.id}` }));

    const stored = await database.orm.em.fork().findOneOrFail(Post, post.id);
    expect(stored.status).toBe('failed');
    expect(stored.failureReason).toMatch(/^Stability AI refused the request \(400\): bad\uFFFDprompt \uFFFD x+…$/);
    expect(stored.failureReason).toHaveLength(2_000);
    const event = await database.orm.em.fork().findOneOrFail(WorkspaceEvent, eventId!);
    expect(JSON.stringify(event)).toContain(stored.failureReason!.slice(0, 60));
  });
});
