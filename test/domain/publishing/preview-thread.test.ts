import { mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublishTarget } from '../../../src/adapters/database/entities/publish-target.ts';
import { SocialConnection } from '../../../src/adapters/database/entities/social-connection.ts';
import { newId } from '../../../src/adapters/database/new-id.ts';
import { createFilesystemStorage } from '../../../src/adapters/object-storage/filesystem-storage.ts';
import type { Deps } from '../../../src/domain/deps.ts';
import { previewSocialPublication } from '../../../src/domain/publishing/preview-social-publication.ts';
import { recordPublicationPlan } from '../../../src/domain/publishing/record-publication-plan.ts';
import { createLogger } from '../../../src/logger.ts';
import { assembleDeps } from '../../../src/services.ts';
import { createPostFixture } from '../../support/post-fixtures.ts';
import { testConfig } from '../../support/test-config.ts';
import { useTestDatabase } from '../../support/test-database.ts';
import { infrastructure } from '../../support/infrastructure.ts';

// The dry run of a thread on a platform without threads (Discord: a dry run asks no platform, so no server is
// needed), and what a plan keeps of `thread`.

const database = useTestDatabase();
const directory = mkdtempSync(join(tmpdir(), 'preview-thread-'));
let deps: Deps;

beforeAll(() => {
  deps = assembleDeps(testConfig(database.url), {
    orm: database.orm,
    storage: createFilesystemStorage({ directory, urlSigningSecret: 'x'.repeat(32), defaultTtlSeconds: 60, baseUrl: () => 'http://test' }),
    logger: createLogger({ level: 'silent', name: 'test' }),
    temporal: new Client({ connection: Connection.lazy({ address: infrastructure.temporalAddress }) }),
  });
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

async function postWithConnection() {
  const post = await createPostFixture(database.orm);
  const em = database.orm.em.fork();
  const connection = em.create(SocialConnection, {
    workspaceId: post.workspaceId,
    platform: 'discord',
    serverUrl: 'https://discord.com/api',
    accountName: 'Harbour news',
    accountId: '1180000000000000001',
    credentialsSealed: 'sealed',
  });
  await em.flush();
  return {
    post,
    connectionId: connection.id,
    caller: { workspaceId: post.workspaceId, plan: 'growth' as const, apiKeyId: randomUUID(), scope: 'full' as const },
  };
}

const text = 'The harbour wakes before the town does. '.repeat(60).trimEnd();

describe('the dry run of a thread', () => {
  it('when the platform has no threads and the text is too long, then the problem says it would be posted as one post, shortened, and the one part shows it', async () => {
    const { post, connectionId, caller } = await postWithConnection();
    const [preview] = await previewSocialPublication(deps, caller, post.id, {
      connectionIds: [connectionId],
      overrides: { [connectionId]: { text } },
      thread: true,
    });
    expect(preview!.text.endsWith('…')).toBe(true);
    expect(preview!.parts).toEqual([{ text: preview!.text, count: preview!.count }]);
    expect(preview!.problems).toEqual([
      {
        code: 'thread_unsupported',
        message: `The platform has no threads: the text would be posted as one post, shortened from ${text.length} to ${preview!.count} characters (the platform takes at most 2000).`,
      },
    ]);
  });

  it('when the platform has no threads and the text fits, then there is no problem', async () => {
    const { post, connectionId, caller } = await postWithConnection();
    const [preview] = await previewSocialPublication(deps, caller, post.id, { connectionIds: [connectionId], thread: true });
    expect(preview).toMatchObject({ text: 'Fixture post', parts: [{ text: 'Fixture post', count: 12 }], problems: [] });
  });
});

describe('a plan with a thread', () => {
  it('when a connection is planned with thread, then its target keeps it, and a plan without it clears it', async () => {
    const { post, connectionId } = await postWithConnection();
    const publicationId = newId();
    const input = { postId: post.id, publicationId, publishAt: new Date().toISOString(), connectionIds: [connectionId], immediate: false };
    const plan = (overrides?: Record<string, { thread?: boolean }>) =>
      database.orm.em.fork().transactional((em) => recordPublicationPlan(em, { ...input, ...(overrides ? { overrides } : {}) }));
    await plan({ [connectionId]: { thread: true } });
    expect(await database.orm.em.fork().findOneOrFail(PublishTarget, { publicationId })).toMatchObject({ thread: true });
    await plan();
    expect(await database.orm.em.fork().findOneOrFail(PublishTarget, { publicationId })).toMatchObject({ thread: false });
  });
});
