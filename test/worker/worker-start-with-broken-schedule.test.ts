import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { Schedule } from '../../src/adapters/database/entities/schedule.ts';
import { Workspace } from '../../src/adapters/database/entities/workspace.ts';
import type { Database } from '../../src/adapters/database/orm.ts';
import { createTemporalSchedule } from '../../src/domain/schedules/temporal-schedule.ts';
import { createWorkspace } from '../../src/domain/workspaces/create-workspace.ts';
import { connectTemporalClient } from '../../src/adapters/temporal/connect.ts';
import { scheduleIds, workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import { applyWorkspacePlan } from '../../workflows/apply-workspace-plan.ts';
import { reconcileSchedules } from '../../workflows/reconcile-schedules.ts';
import { eventually } from '../support/eventually.ts';
import { testConfigEnv } from '../support/test-config.ts';
import { openTestDatabase } from '../support/test-database.ts';
import { startWorkerProcess } from '../support/worker-process.ts';

// One customer's schedule is broken in Temporal: its run's input is in an encoding this service cannot read (written
// by another client, say one with an encryption codec), so describing it, and so updating it, fails. A worker must
// still start and poll, and the reconcile run must repair every other schedule and report that one.

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let orm: Database;
let client: Client;
let env: Record<string, string>;
let workspaceId: string;

beforeAll(async () => {
  database = await openTestDatabase();
  orm = database.orm;
  env = testConfigEnv(database.url);
  client = await connectTemporalClient(loadConfig(env).temporal);
  ({
    workspace: { id: workspaceId },
  } = await createWorkspace(orm, { name: 'Broken schedule', plan: 'growth' }));
});
afterAll(async () => {
  await client?.connection.close();
  await database?.close();
});

const taskQueue = () => env.TEMPORAL_TASK_QUEUE!;

/** A row last changed an hour ago (well past reconcile's grace window). */
async function row(name: string): Promise<Schedule> {
  const em = orm.em.fork();
  const schedule = em.create(Schedule, { workspaceId, name, cronExpression: '0 9 * * *', isActive: true });
  await em.flush();
  await em.getConnection().execute(`update schedules set updated_at = now() - interval '1 hour' where id = ?`, [schedule.id]);
  return schedule;
}

/** The row's Temporal Schedule as another client wrote it: ours by its memo, its input unreadable to us. */
async function createBrokenSchedule(schedule: Schedule): Promise<void> {
  const json = (value: unknown) => defaultPayloadConverter.toPayload(value);
  await client.workflowService.createSchedule({
    namespace: client.options.namespace,
    scheduleId: scheduleIds.generation(schedule.id),
    requestId: randomUUID(),
    schedule: {
      spec: { cronString: [schedule.cronExpression] },
      action: {
        startWorkflow: {
          workflowId: workflowIds.scheduledGeneration(schedule.id),
          workflowType: { name: 'scheduledGeneration' },
          taskQueue: { name: taskQueue() },
          input: { payloads: [{ metadata: { encoding: Buffer.from('binary/encrypted') }, data: Buffer.from('sealed') }] },
        },
      },
      state: { notes: 'written by another client' },
    },
    memo: { fields: { owner: json('content-service'), taskQueue: json(taskQueue()), workspaceId: json(workspaceId), scheduleId: json(schedule.id) } },
  });
}

describe('a worker while a schedule is broken in Temporal', () => {
  it(
    'when one schedule cannot be described or updated, then the worker starts and polls, and the reconcile run repairs the others and reports it',
    { timeout: 90_000 },
    async () => {
      const broken = await row('Broken in Temporal');
      const missing = await row('Missing in Temporal');
      const drifted = await row('Paused behind our back');
      await createBrokenSchedule(broken);
      await createTemporalSchedule(client, drifted, taskQueue(), 'growth');
      await client.schedule.getHandle(scheduleIds.generation(drifted.id)).pause('an operator paused it');
      await expect(client.schedule.getHandle(scheduleIds.generation(broken.id)).describe()).rejects.toThrow(/encoding/i);
      // Reconcile picks its candidates from Temporal's list, which shows a change a moment later.
      await eventually(async () => {
        const listed = new Map<string, boolean>();
        for await (const summary of client.schedule.list()) listed.set(summary.scheduleId, summary.state.paused);
        expect(listed.has(scheduleIds.generation(broken.id))).toBe(true);
        expect(listed.get(scheduleIds.generation(drifted.id))).toBe(true);
      });

      const worker = await startWorkerProcess(env);
      try {
        // The run the `schedules-reconcile` schedule starts, started here on this worker's own task queue.
        const report = await client.workflow.execute(reconcileSchedules, { workflowId: `schedules-reconcile-test-${randomUUID()}`, taskQueue: taskQueue() });
        expect(report).toMatchObject({ checked: 3, created: [missing.id], updated: [drifted.id], deleted: [] });
        expect(report.failed).toEqual([{ scheduleId: broken.id, error: expect.stringMatching(/encoding/i) }]);
        expect((await client.schedule.getHandle(scheduleIds.generation(missing.id)).describe()).state.paused).toBe(false);
        expect((await client.schedule.getHandle(scheduleIds.generation(drifted.id)).describe()).state.paused).toBe(false);
        await eventually(() => Promise.resolve(expect(worker.output()).toContain('schedule could not be reconciled')));

        // The worker created (or brought up to date) the service's own schedules, the reconcile every 5 minutes.
        const reconcile = await client.schedule.getHandle(scheduleIds.schedulesReconcile).describe();
        expect(reconcile.spec.intervals?.map((interval) => interval.every)).toEqual([5 * 60_000]);
        expect(reconcile.action).toMatchObject({ workflowType: 'reconcileSchedules' });

        // A downgrade reaches every schedule but the broken one, which it reports instead of stopping at it.
        await orm.em.fork().nativeUpdate(Workspace, { id: workspaceId }, { plan: 'starter' });
        const applied = await client.workflow.execute(applyWorkspacePlan, {
          workflowId: `workspace-plan-test-${randomUUID()}`,
          taskQueue: taskQueue(),
          args: [{ workspaceId }],
        });
        expect(applied).toEqual({ schedules: 3, failed: [broken.id], deliveriesStopped: 0 });
        for (const paused of [missing, drifted])
          expect((await client.schedule.getHandle(scheduleIds.generation(paused.id)).describe()).state.paused).toBe(true);
      } finally {
        worker.process.kill('SIGTERM');
        await once(worker.process, 'exit');
        await client.schedule.getHandle(scheduleIds.generation(broken.id)).delete();
      }
    },
  );
});
