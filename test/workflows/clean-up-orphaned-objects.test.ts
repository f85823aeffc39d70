import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrphanedObject } from '../../src/adapters/database/entities/orphaned-object.ts';
import { recordOrphanedObjects, type OrphanBatch } from '../../src/domain/storage/orphaned-objects.ts';
import type { ObjectStorage } from '../../src/adapters/object-storage/object-storage.ts';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import { cleanUpOrphanedObjects, pagesPerRun, sweepOrphanedObjects } from '../../workflows/clean-up-orphaned-objects.ts';
import { flakyStorage } from '../support/flaky-storage.ts';
import { startWorkflowTestBed, type WorkflowTestBed } from '../support/workflow-test-bed.ts';

let bed: WorkflowTestBed;
beforeAll(async () => {
  bed = await startWorkflowTestBed();
});
afterAll(() => bed?.stop());

async function storeOrphans(count: number, deleteAfter = new Date()) {
  const keys = Array.from({ length: count }, () => `orphans/${randomBytes(6).toString('hex')}.png`);
  for (const key of keys) await bed.storage.put(key, Buffer.from('bytes'), 'image/png');
  const em = bed.orm.em.fork();
  const batch = (await recordOrphanedObjects(em, { keys, reason: 'test', workspaceId: 'test-workspace', deleteAfter }))!;
  return { keys, batch };
}

/** Runs one batch's cleanup workflow to the end; returns its result and how much server time passed. */
async function runCleanup(objectStorage: ObjectStorage, batch: OrphanBatch) {
  const startedAt = await bed.env.currentTimeMs();
  const result = await bed.runWith(bed.activities({ storage: objectStorage }), (taskQueue) =>
    bed.client.workflow.execute(cleanUpOrphanedObjects, {
      workflowId: workflowIds.storageCleanup(batch.batchId),
      taskQueue,
      args: [{ batchId: batch.batchId, deleteAfter: batch.deleteAfter.toISOString() }],
    }),
  );
  return { result, serverTimeMs: (await bed.env.currentTimeMs()) - startedAt };
}

describe('cleanUpOrphanedObjects on the time-skipping server', () => {
  it('when storage fails twice, then the activity is retried on its backoff and the objects are deleted once it recovers', async () => {
    const { keys, batch } = await storeOrphans(1);
    const flaky = flakyStorage(bed.storage, 'delete', 2);
    const { result, serverTimeMs } = await runCleanup(flaky, batch);

    expect(result).toEqual({ deleted: 1 });
    expect(flaky.attempts).toBe(3);
    expect(await bed.storage.get(keys[0]!)).toBeNull();
    expect(await bed.orm.em.fork().count(OrphanedObject, { batchId: batch.batchId })).toBe(0);
    // Two retries on the ladder (5 s, then 10 s) passed in server time, not in wall-clock time.
    expect(serverTimeMs).toBeGreaterThanOrEqual(15_000);
  });

  it('when the batch has a grace period, then its objects are deleted only once it has passed (in server time)', async () => {
    // The grace period is measured from server time: this server has skipped ahead of the wall clock by now.
    const recordedAt = await bed.env.currentTimeMs();
    const { keys, batch } = await storeOrphans(2, new Date(recordedAt + 60 * 60 * 1000));
    const { result } = await runCleanup(bed.storage, batch);
    expect(result).toEqual({ deleted: 2 });
    expect((await bed.env.currentTimeMs()) - recordedAt).toBeGreaterThanOrEqual(60 * 60 * 1000);
    for (const key of keys) expect(await bed.storage.get(key)).toBeNull();
  });

  it('when the sweep runs, then every due orphan goes and those still in their grace period stay', async () => {
    const due = await storeOrphans(3);
    const later = await storeOrphans(1, new Date(Date.now() + 60 * 60 * 1000));
    const result = await bed.runWith(bed.activities(), (taskQueue) =>
      bed.client.workflow.execute(sweepOrphanedObjects, { workflowId: `sweep-${taskQueue}`, taskQueue }),
    );
    expect(result.deleted).toBeGreaterThanOrEqual(3);
    for (const key of due.keys) expect(await bed.storage.get(key)).toBeNull();
    expect(await bed.storage.get(later.keys[0]!)).not.toBeNull();
    expect(await bed.orm.em.fork().count(OrphanedObject, { batchId: later.batch.batchId })).toBe(1);
  });

  it(
    'when a batch holds more pages than one run deletes, then the cleanup continues as new and deletes all of it, counted once',
    { timeout: 120_000 },
    async () => {
      // Rows only: deleting an object that is not in storage succeeds, which keeps a hundred pages quick.
      const count = pagesPerRun * 100 + 1;
      const batchId = randomUUID();
      await bed.orm.em.getConnection().execute(
        `insert into orphaned_objects (id, batch_id, object_key, reason, delete_after, created_at)
       select gen_random_uuid(), ?, 'orphans/many-' || n || '.png', 'test', now() - interval '1 minute', now() from generate_series(1, ?) as n`,
        [batchId, count],
      );
      const handle = await bed.runWith(bed.activities(), async (taskQueue) => {
        const started = await bed.client.workflow.start(cleanUpOrphanedObjects, {
          workflowId: workflowIds.storageCleanup(batchId),
          taskQueue,
          args: [{ batchId, deleteAfter: new Date(0).toISOString() }],
        });
        expect(await started.result()).toEqual({ deleted: count });
        return started;
      });
      expect((await bed.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).describe()).status.name).toBe('CONTINUED_AS_NEW');
      expect(await bed.orm.em.fork().count(OrphanedObject, { batchId })).toBe(0);
    },
  );
});
