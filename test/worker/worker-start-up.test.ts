import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { msToTs } from '@temporalio/common/lib/time.js';
import { once } from 'node:events';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { connectTemporalClient } from '../../src/adapters/temporal/connect.ts';
import { scheduleIds } from '../../src/adapters/temporal/workflow-ids.ts';
import { ensureServiceSchedules } from '../../worker/ensure-schedules.ts';
import { reconcileSchedules } from '../../workflows/reconcile-schedules.ts';
import { eventually } from '../support/eventually.ts';
import { testConfigEnv } from '../support/test-config.ts';
import { useTestDatabase } from '../support/test-database.ts';
import { startWorkerProcess } from '../support/worker-process.ts';

// What every worker does at start-up against the namespace: its search attributes and the service's own schedules,
// created or brought up to date. Each case has a namespace of its own (the service schedules are singletons of the
// namespace, shared by every test file in `default`).

const database = useTestDatabase();
const clients: Client[] = [];
afterAll(() => Promise.all(clients.map((client) => client.connection.close())));

/** A namespace of this test's own, once the server's namespace cache knows it, and a client on it. */
async function newNamespace(prefix: string): Promise<{ namespace: string; client: Client }> {
  const namespace = `${prefix}-${randomBytes(4).toString('hex')}`;
  const client = await connectTemporalClient(loadConfig({ ...testConfigEnv(database.url), TEMPORAL_NAMESPACE: namespace }).temporal);
  clients.push(client);
  await client.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  await eventually(() => client.connection.operatorService.listSearchAttributes({ namespace }), 30_000);
  return { namespace, client };
}

const logger = createLogger({ level: 'silent', name: 'test', format: 'json' });
const everyOf = async (client: Client, scheduleId: string) =>
  (await client.schedule.getHandle(scheduleId).describe()).spec.intervals?.map((interval) => interval.every);

describe('the service schedules at worker start-up', () => {
  it(
    'when several workers start at once, then all succeed and each schedule is as defined, and a definition that changed is brought up to date',
    { timeout: 60_000 },
    async () => {
      const { client } = await newNamespace('service-schedules');
      await Promise.all(Array.from({ length: 4 }, () => ensureServiceSchedules(client, 'queue-a', logger)));
      expect(await everyOf(client, scheduleIds.schedulesReconcile)).toEqual([5 * 60_000]);
      expect(await everyOf(client, scheduleIds.storageSweep)).toEqual([15 * 60_000]);
      expect(await everyOf(client, scheduleIds.eventSweep)).toEqual([60_000]);

      // An older release's definition (another interval and task queue), as a rolling deploy finds it.
      await client.schedule.getHandle(scheduleIds.schedulesReconcile).update((current) => ({ ...current, spec: { intervals: [{ every: '1 hour' }] } }));
      await ensureServiceSchedules(client, 'queue-b', logger);
      for (const scheduleId of [scheduleIds.schedulesReconcile, scheduleIds.storageSweep, scheduleIds.eventSweep]) {
        expect((await client.schedule.getHandle(scheduleId).describe()).action).toMatchObject({ taskQueue: 'queue-b' });
      }
      expect(await everyOf(client, scheduleIds.schedulesReconcile)).toEqual([5 * 60_000]);
    },
  );

  it(
    'when the search attributes cannot be created and a service schedule is broken, then the worker logs both, starts, and polls',
    { timeout: 90_000 },
    async () => {
      const { namespace, client } = await newNamespace('start-up-failures');
      // All ten Keyword slots of the dev server's namespace taken: creating ours fails, as where the worker may not.
      await client.connection.operatorService.addSearchAttributes({
        namespace,
        searchAttributes: Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`filler${index}`, 2])),
      });
      // The storage sweep written by another client: its input in an encoding we cannot read, so describing it fails.
      await client.workflowService.createSchedule({
        namespace,
        scheduleId: scheduleIds.storageSweep,
        requestId: randomUUID(),
        schedule: {
          spec: { interval: [{ interval: msToTs('15 minutes') }] },
          action: {
            startWorkflow: {
              workflowId: 'storage-sweep',
              workflowType: { name: 'sweepOrphanedObjects' },
              taskQueue: { name: 'elsewhere' },
              input: { payloads: [{ metadata: { encoding: Buffer.from('binary/encrypted') }, data: Buffer.from('sealed') }] },
            },
          },
        },
        memo: { fields: { purpose: defaultPayloadConverter.toPayload('written by another client') } },
      });

      const taskQueue = `test-${randomBytes(6).toString('hex')}`;
      // The one worker of the suite that bundles the workflows at start-up, as `npm run worker` does in development.
      const worker = await startWorkerProcess(
        { ...testConfigEnv(database.url), TEMPORAL_NAMESPACE: namespace, TEMPORAL_TASK_QUEUE: taskQueue },
        { bundlesItself: true },
      );
      try {
        const report = await client.workflow.execute(reconcileSchedules, { workflowId: `schedules-reconcile-test-${randomUUID()}`, taskQueue });
        expect(report).toMatchObject({ checked: 0, failed: [] });
        expect(worker.output()).toContain('search attributes not ensured');
        expect(worker.output()).toContain('service schedules not ensured');
        // The other service schedules were still created.
        expect(await everyOf(client, scheduleIds.schedulesReconcile)).toEqual([5 * 60_000]);
        expect(await everyOf(client, scheduleIds.eventSweep)).toEqual([60_000]);
      } finally {
        worker.process.kill('SIGTERM');
        await once(worker.process, 'exit');
      }
    },
  );
});
