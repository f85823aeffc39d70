import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/adapters/crypto/secret-box.ts';
import { PublishTarget } from '../../src/adapters/database/entities/publish-target.ts';
import { PublishTargetAttempt } from '../../src/adapters/database/entities/publish-target-attempt.ts';
import { PublishTargetPart } from '../../src/adapters/database/entities/publish-target-part.ts';
import { createFilesystemStorage } from '../../src/adapters/object-storage/filesystem-storage.ts';
import { vanishedDetail } from '../../src/domain/publishing/attempt-outcome.ts';
import { planPublication } from '../../src/domain/publishing/publication-workflow.ts';
import { createLogger } from '../../src/logger.ts';
import { assembleDeps } from '../../src/services.ts';
import { startMastodonServer, type MastodonServer } from '../fakes/mastodon-server.ts';
import { useCrashTestBed } from '../support/crash-test-bed.ts';
import { eventually } from '../support/eventually.ts';
import { createPostFixture, mastodonConnectionFixture } from '../support/post-fixtures.ts';
import { longThreadText, unnumbered } from '../support/thread-text.ts';

// A thread to Mastodon whose worker is killed (SIGKILL) between part 2 and part 3: the fake holds part 3's request,
// so the worker dies after parts 1 and 2 were recorded and while part 3 was sent and unanswered. Another worker
// takes the activity over once its heartbeat times out: it goes on at part 3 (recorded `unknown` for the dead
// attempt, then sent again under part 3's own idempotency key), replying to part 2, and finishes the thread. Every
// part is on the instance exactly once.

let mastodon: MastodonServer;
const directory = mkdtempSync(join(tmpdir(), 'thread-crash-'));

beforeAll(async () => {
  mastodon = await startMastodonServer();
});
afterAll(async () => {
  await mastodon?.close();
  rmSync(directory, { recursive: true, force: true });
});
const bed = useCrashTestBed(() => ({ SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true' }));

const statusRequests = () => mastodon.requests.filter((request) => request.path === '/api/v1/statuses');

describe('a worker killed between part 2 and part 3 of a thread', () => {
  it(
    'when another worker takes over, then the thread goes on at part 3 and every part is posted once, each replying to the one before',
    { timeout: 180_000 },
    async () => {
      const { orm, config, client } = bed;
      const post = await createPostFixture(orm);
      const em = orm.em.fork();
      const connection = mastodonConnectionFixture(em, post, mastodon, createSecretBox(config.secrets.encryptionKeys, 'secrets'));
      await em.flush();
      // Parts 1 and 2 are answered; part 3's request is held for longer than the test runs.
      mastodon.script('statuses', [{}, {}, { delayMs: 600_000 }]);

      const first = await bed.startWorker();
      try {
        const deps = assembleDeps(config, {
          orm,
          temporal: client,
          storage: createFilesystemStorage({ directory, urlSigningSecret: 'x'.repeat(32), defaultTtlSeconds: 60, baseUrl: () => 'http://test' }),
          logger: createLogger({ level: 'silent', name: 'test' }),
        });
        await planPublication(deps, post, {
          publishAt: null,
          connectionIds: [connection.id],
          overrides: { [connection.id]: { text: longThreadText, thread: true } },
        });
        await eventually(() => Promise.resolve(expect(statusRequests()).toHaveLength(3)), 60_000);
        expect(await orm.em.fork().count(PublishTargetPart, {})).toBe(2);
      } finally {
        first.process.kill('SIGKILL');
        await once(first.process, 'exit');
      }

      const second = await bed.startWorker();
      try {
        // The heartbeat timeout (5 s in this bundle) shows the dead attempt, then the retry runs on the second worker.
        await eventually(
          async () => expect(await orm.em.fork().findOneOrFail(PublishTarget, { connectionId: connection.id })).toMatchObject({ status: 'Published' }),
          120_000,
        );
      } finally {
        second.process.kill('SIGTERM');
        await once(second.process, 'exit');
      }

      const statuses = mastodon.statuses;
      expect(statuses.length).toBeGreaterThanOrEqual(3);
      expect(statuses.map((status) => unnumbered(status.text)).join(' ')).toBe(longThreadText);
      expect(statuses.map((status) => status.inReplyToId)).toEqual([null, ...statuses.slice(0, -1).map((status) => status.id)]);
      // Part 3 was sent twice (to the dead worker's held request, then by the second worker) and made one status.
      expect(statusRequests()).toHaveLength(statuses.length + 1);
      const target = await orm.em.fork().findOneOrFail(PublishTarget, { connectionId: connection.id });
      expect(target.externalPostId).toBe(statuses[0]!.id);
      const parts = await orm.em.fork().find(PublishTargetPart, { targetId: target.id }, { orderBy: { part: 'asc' } });
      expect(parts.map((part) => part.externalPostId)).toEqual(statuses.map((status) => status.id));
      const attempts = await orm.em.fork().find(PublishTargetAttempt, { targetId: target.id }, { orderBy: { attempt: 'asc', part: 'asc' } });
      expect(attempts.slice(0, 4).map(({ attempt, part, outcome, detail }) => [attempt, part, outcome, outcome === 'unknown' ? detail : ''])).toEqual([
        [1, 1, 'published', ''],
        [1, 2, 'published', ''],
        [1, 3, 'unknown', vanishedDetail],
        [2, 3, 'published', ''],
      ]);
    },
  );
});
