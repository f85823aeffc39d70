import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { assembleDeps } from '../../src/services.ts';
import { testConfig } from '../support/test-config.ts';
import { OrphanedObject } from '../../src/data/entities/orphaned-object.ts';
import { PostVersion } from '../../src/data/entities/post-version.ts';
import { UsageActivity } from '../../src/data/entities/usage-activity.ts';
import { newId } from '../../src/data/new-id.ts';
import { openDatabase, type Database } from '../../src/data/orm.ts';
import { reserveObjectKey } from '../../src/domain/storage/orphaned-objects.ts';
import { createLogger } from '../../src/logger.ts';
import { createFilesystemStorage } from '../../src/storage/filesystem-storage.ts';
import { createPostFixture } from '../support/post-fixtures.ts';
import { createTestDatabase } from '../support/test-database.ts';

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

describe('saveGeneratedImage', () => {
  it('when it runs twice for the same generation, then there is one version, one usage item and the artwork is claimed', async () => {
    const activities = createActivities(
      assembleDeps(testConfig(databaseUrl), {
        orm,
        storage: createFilesystemStorage({ directory, urlSigningSecret: 'x'.repeat(32), defaultTtlSeconds: 60, baseUrl: () => 'http://test' }),
        logger: createLogger({ level: 'silent', name: 'test' }),
        temporal: new Client({ connection: Connection.lazy({ address: inject('temporalAddress') }) }),
      }),
    );
    const post = await createPostFixture(orm);
    const artworkKey = `workspaces/${post.workspaceId}/posts/${post.id}/artwork-x.png`;
    await reserveObjectKey(orm.em.fork(), { key: artworkKey, reason: 'test', graceMs: 60_000 });
    const input = { postId: post.id, generationId: newId(), prompt: 'A new prompt', promptWasNew: true, format: '9:16' as const, artworkKey, madeBy: 'a test', seed: 9 };

    const first = await activities.saveGeneratedImage(input);
    const retried = await activities.saveGeneratedImage(input);

    expect(retried).toEqual(first);
    const em = orm.em.fork();
    expect(await em.count(PostVersion, { postId: post.id })).toBe(1);
    expect(await em.count(UsageActivity, { postId: post.id })).toBe(1);
    expect(await em.count(OrphanedObject, { objectKey: artworkKey })).toBe(0);
  });
});
