import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { assembleDeps } from '../../src/services.ts';
import { testConfig } from '../support/test-config.ts';
import { OrphanedObject } from '../../src/adapters/database/entities/orphaned-object.ts';
import { PostVersion } from '../../src/adapters/database/entities/post-version.ts';
import { Post } from '../../src/adapters/database/entities/post.ts';
import { UsageActivity } from '../../src/adapters/database/entities/usage-activity.ts';
import { newId } from '../../src/adapters/database/new-id.ts';
import { openDatabase, type Database } from '../../src/adapters/database/orm.ts';
import { reserveObjectKey } from '../../src/domain/storage/orphaned-objects.ts';
import { createLogger } from '../../src/logger.ts';
import { createFilesystemStorage } from '../../src/adapters/object-storage/filesystem-storage.ts';
import { createPostFixture } from '../support/post-fixtures.ts';
import { createTestDatabase } from '../support/test-database.ts';
import { infrastructure } from '../support/infrastructure.ts';

// The second half of "exactly once": a worker that dies after the save committed but before Temporal heard of it
// gets the activity retried. The retry must find its work done, not do it again.

let orm: Database;
let dropDatabase: () => Promise<void>;
let databaseUrl: string;
const directory = mkdtempSync(join(tmpdir(), 'save-test-'));

beforeAll(async () => {
  const database = await createTestDatabase();
  dropDatabase = database.drop;
  databaseUrl = database.url;
  orm = await openDatabase(database.url);
});
afterAll(async () => {
  await orm?.close();
  await dropDatabase?.();
  rmSync(directory, { recursive: true, force: true });
});

function activitiesOnTestDatabase() {
  return createActivities(
    assembleDeps(testConfig(databaseUrl), {
      orm,
      storage: createFilesystemStorage({ directory, urlSigningSecret: 'x'.repeat(32), defaultTtlSeconds: 60, baseUrl: () => 'http://test' }),
      logger: createLogger({ level: 'silent', name: 'test' }),
      temporal: new Client({ connection: Connection.lazy({ address: infrastructure.temporalAddress }) }),
    }),
  );
}

describe('saveGeneratedImage', () => {
  it('when it runs twice for the same generation, then there is one version, one usage item and the artwork is claimed', async () => {
    const activities = activitiesOnTestDatabase();
    const post = await createPostFixture(orm);
    const artworkKey = `workspaces/${post.workspaceId}/posts/${post.id}/artwork-x.png`;
    await reserveObjectKey(orm.em.fork(), { key: artworkKey, reason: 'test', graceMs: 60_000 });
    const input = {
      postId: post.id,
      generationId: newId(),
      prompt: 'A new prompt',
      promptWasNew: true,
      format: '9:16' as const,
      artworkKey,
      madeBy: 'a test',
      seed: 9,
    };

    const first = await activities.saveGeneratedImage(input);
    const retried = await activities.saveGeneratedImage(input);

    expect(retried).toEqual(first);
    const em = orm.em.fork();
    expect(await em.count(PostVersion, { postId: post.id })).toBe(1);
    expect(await em.count(UsageActivity, { postId: post.id })).toBe(1);
    expect(await em.count(OrphanedObject, { objectKey: artworkKey })).toBe(0);
  });

  it('when eight generations of one post save at the same moment, then their versions are numbered 1 to 8 without a gap, and the post holds the last', async () => {
    const activities = activitiesOnTestDatabase();
    const post = await createPostFixture(orm);
    const inputs = await Promise.all(
      Array.from({ length: 8 }, async (_, index) => {
        const artworkKey = `workspaces/${post.workspaceId}/posts/${post.id}/artwork-${index}.png`;
        await reserveObjectKey(orm.em.fork(), { key: artworkKey, reason: 'test', graceMs: 60_000 });
        return {
          postId: post.id,
          generationId: newId(),
          prompt: `Prompt ${index}`,
          promptWasNew: true,
          format: '1:1' as const,
          artworkKey,
          madeBy: 'a test',
          seed: index,
        };
      }),
    );

    const results = await Promise.all(inputs.map((input) => activities.saveGeneratedImage(input)));

    expect(results.map((result) => result.versionNumber).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const versions = await orm.em.fork().find(PostVersion, { postId: post.id }, { orderBy: { versionNumber: 'asc' } });
    // Each generation's answer names the version that keeps its own seed.
    expect(results.map((result) => versions[result.versionNumber - 1]!.seed)).toEqual(inputs.map((input) => input.seed));
    const last = versions.at(-1)!;
    const stored = await orm.em.fork().findOneOrFail(Post, post.id);
    expect({ imageKey: stored.imageKey, prompt: stored.prompt }).toEqual({ imageKey: last.imageKey, prompt: last.prompt });
  });
});
