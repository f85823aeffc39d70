import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { assembleDeps } from '../../src/services.ts';
import type { Config } from '../../src/config.ts';
import { testConfig } from '../support/test-config.ts';
import { OrphanedObject } from '../../src/data/entities/orphaned-object.ts';
import { openDatabase, type Database } from '../../src/data/orm.ts';
import { recordOrphanedObjects, type OrphanBatch } from '../../src/domain/storage/orphaned-objects.ts';
import { createLogger } from '../../src/logger.ts';
import { createFilesystemStorage } from '../../src/storage/filesystem-storage.ts';
import type { ObjectStorage } from '../../src/storage/object-storage.ts';
import { workflowIds } from '../../src/temporal/workflow-ids.ts';
import { pagesPerRun, type cleanUpOrphanedObjects, type sweepOrphanedObjects } from '../../workflows/clean-up-orphaned-objects.ts';
import { flakyDeletes } from '../support/flaky-storage.ts';
import { createTestDatabase } from '../support/test-database.ts';
import { startTimeSkippingEnvironment } from '../support/time-skipping.ts';
import { workflowSpanSink } from '../../worker/workflow-span-sink.ts';

let env: TestWorkflowEnvironment;
let orm: Database;
let dropDatabase: () => Promise<void>;
let storage: ObjectStorage;
let config: Config;
const directory = mkdtempSync(join(tmpdir(), 'cleanup-test-'));
const logger = createLogger({ level: 'silent', name: 'test' });

beforeAll(async () => {
  env = await startTimeSkippingEnvironment();
  const database = await createTestDatabase();
  dropDatabase = database.drop;
  orm = await openDatabase(database.url);
  config = testConfig(database.url);
  storage = createFilesystemStorage({ directory, urlSigningSecret: 'x'.repeat(32), defaultTtlSeconds: 60, baseUrl: () => 'http://test' });
});
afterAll(async () => {
  await env?.teardown();
  await orm?.close();
  await dropDatabase?.();
  rmSync(directory, { recursive: true, force: true });
});

async function storeOrphans(count: number, deleteAfter = new Date()) {
  const keys = Array.from({ length: count }, () => `orphans/${randomBytes(6).toString('hex')}.png`);
  for (const key of keys) await storage.put(key, Buffer.from('bytes'), 'image/png');
  const em = orm.em.fork();
  const batch = recordOrphanedObjects(em, { keys, reason: 'test', workspaceId: 'test-workspace', deleteAfter })!;
  await em.flush();
  return { keys, batch };
}

function workerWith(objectStorage: ObjectStorage, taskQueue: string) {
  return Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    sinks: workflowSpanSink(),
    activities: createActivities({ ...assembleDeps(config, { orm, storage: objectStorage, logger, temporal: env.client }) }),
  });
}

/** Runs one batch's cleanup workflow to the end; returns its result and how much server time passed. */
async function runCleanup(objectStorage: ObjectStorage, batch: OrphanBatch) {
  const taskQueue = `cleanup-${randomBytes(4).toString('hex')}`;
  const worker = await workerWith(objectStorage, taskQueue);
  const startedAt = await env.currentTimeMs();
  const result = await worker.runUntil(
    env.client.workflow.execute<typeof cleanUpOrphanedObjects>('cleanUpOrphanedObjects', {
      workflowId: workflowIds.storageCleanup(batch.batchId),
      taskQueue,
      args: [{ batchId: batch.batchId, deleteAfter: batch.deleteAfter.toISOString() }],
    }),
  );
  return { result, serverTimeMs: (await env.currentTimeMs()) - startedAt };
}

describe('cleanUpOrphanedObjects on the time-skipping server', () => {
  it('when storage fails twice, then the activity is retried on its backoff and the objects are deleted once it recovers', async () => {
    const { keys, batch } = await storeOrphans(1);
    const flaky = flakyDeletes(storage, 2);
    const { result, serverTimeMs } = await runCleanup(flaky, batch);

    expect(result).toEqual({ deleted: 1 });
    expect(flaky.deleteAttempts).toBe(3);
    expect(await storage.get(keys[0]!)).toBeNull();
    expect(await orm.em.fork().count(OrphanedObject, { batchId: batch.batchId })).toBe(0);
    // Two retries on the ladder (5 s, then 10 s) passed in server time, not in wall-clock time.
    expect(serverTimeMs).toBeGreaterThanOrEqual(15_000);
  });

  it('when the batch has a grace period, then its objects are deleted only once it has passed (in server time)', async () => {
    // The grace period is measured from server time: this server has skipped ahead of the wall clock by now.
    const recordedAt = await env.currentTimeMs();
    const { keys, batch } = await storeOrphans(2, new Date(recordedAt + 60 * 60 * 1000));
    const { result } = await runCleanup(storage, batch);
    expect(result).toEqual({ deleted: 2 });
    expect((await env.currentTimeMs()) - recordedAt).toBeGreaterThanOrEqual(60 * 60 * 1000);
    for (const key of keys) expect(await storage.get(key)).toBeNull();
  });

  it('when the sweep runs, then every due orphan goes and those still in their grace period stay', async () => {
    const due = await storeOrphans(3);
    const later = await storeOrphans(1, new Date(Date.now() + 60 * 60 * 1000));
    const taskQueue = `sweep-${randomBytes(4).toString('hex')}`;
    const worker = await workerWith(storage, taskQueue);
    const result = await worker.runUntil(
      env.client.workflow.execute<typeof sweepOrphanedObjects>('sweepOrphanedObjects', { workflowId: `sweep-${taskQueue}`, taskQueue }),
    );
    expect(result.deleted).toBeGreaterThanOrEqual(3);
    for (const key of due.keys) expect(await storage.get(key)).toBeNull();
    expect(await storage.get(later.keys[0]!)).not.toBeNull();
    expect(await orm.em.fork().count(OrphanedObject, { batchId: later.batch.batchId })).toBe(1);
  });

  it('when a batch holds more pages than one run deletes, then the cleanup continues as new and deletes all of it, counted once', { timeout: 120_000 }, async () => {
    // Rows only: deleting an object that is not in storage succeeds, which keeps a hundred pages quick.
    const count = pagesPerRun * 100 + 1;
    const batchId = randomUUID();
    await orm.em.getConnection().execute(
      `insert into orphaned_objects (id, batch_id, object_key, reason, delete_after, created_at)
       select gen_random_uuid(), ?, 'orphans/many-' || n || '.png', 'test', now() - interval '1 minute', now() from generate_series(1, ?) as n`,
      [batchId, count],
    );
    const taskQueue = `cleanup-${randomBytes(4).toString('hex')}`;
    const worker = await workerWith(storage, taskQueue);
    const handle = await env.client.workflow.start<typeof cleanUpOrphanedObjects>('cleanUpOrphanedObjects', {
      workflowId: workflowIds.storageCleanup(batchId),
      taskQueue,
      args: [{ batchId, deleteAfter: new Date(0).toISOString() }],
    });
    expect(await worker.runUntil(handle.result())).toEqual({ deleted: count });
    expect((await env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).describe()).status.name).toBe('CONTINUED_AS_NEW');
    expect(await orm.em.fork().count(OrphanedObject, { batchId })).toBe(0);
  });
});
