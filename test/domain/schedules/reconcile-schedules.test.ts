import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Schedule } from '../../../src/data/entities/schedule.ts';
import { reconcileSchedules } from '../../../src/domain/schedules/reconcile-schedules.ts';
import { temporalScheduleOptions } from '../../../src/domain/schedules/temporal-schedule.ts';
import { scheduleIds } from '../../../src/temporal/workflow-ids.ts';
import { newId } from '../../../src/data/new-id.ts';
import { runAdmin } from '../../support/admin-cli.ts';
import { eventually } from '../../support/eventually.ts';
import { startAppWithWorkspace } from '../../support/app-with-workspace.ts';
import type { TestApp } from '../../support/test-app.ts';
import type { TestWorkspace } from '../../support/workspaces.ts';

// Drift between the database and Temporal, as a crash half-way through a change would leave it, repaired by the
// reconcile step (the database wins), both as a function and as the operators' command.

let app: TestApp;
let workspace: TestWorkspace;

beforeAll(async () => {
  ({ app, workspace } = await startAppWithWorkspace());
});
afterAll(() => app?.stop());

const temporal = () => app.api.services.temporal;
const handleOf = (id: string) => temporal().schedule.getHandle(scheduleIds.generation(id));

async function schedule(name: string): Promise<string> {
  return (await workspace.client.post<{ id: string }>('/schedules', { name, cronExpression: '0 9 * * *' })).body.id;
}

describe('reconcile', () => {
  it('when a Temporal Schedule is missing, differs, or has no row, then reconcile creates, updates and deletes to match the database', async () => {
    const missing = await schedule('Missing in Temporal');
    const drifted = await schedule('Paused behind our back');
    const fine = await schedule('In agreement');
    await handleOf(missing).delete();
    await handleOf(drifted).pause('an operator paused it in the UI');
    // A Temporal Schedule of ours whose row never committed (the crash between create and commit).
    const orphanRow = app.api.services.orm.em.fork().create(Schedule, { workspaceId: workspace.id, name: 'Orphan', cronExpression: '0 9 * * *', isActive: true });
    orphanRow.id = newId();
    orphanRow.createdAt = new Date();
    await temporal().schedule.create(temporalScheduleOptions(orphanRow, app.config.temporal.taskQueue, 'growth'));
    // Reconcile finds orphans in Temporal's list of schedules, which is eventually consistent: one created a moment
    // ago may not be listed yet (the next reconcile would find it).
    await eventually(async () => {
      const listed: string[] = [];
      for await (const summary of temporal().schedule.list()) listed.push(summary.scheduleId);
      expect(listed).toContain(scheduleIds.generation(orphanRow.id));
    });

    const report = await reconcileSchedules(app.api.services.orm, temporal(), app.config.temporal.taskQueue);
    expect(report.created).toEqual([missing]);
    expect(report.updated).toEqual([drifted]);
    expect(report.deleted).toEqual([orphanRow.id]);
    expect(report.checked).toBeGreaterThanOrEqual(3);

    expect((await handleOf(missing).describe()).state.paused).toBe(false);
    expect((await handleOf(drifted).describe()).state.paused).toBe(false);
    await expect(handleOf(orphanRow.id).describe()).rejects.toThrow();
    expect((await handleOf(fine).describe()).state.paused).toBe(false);

    const again = await reconcileSchedules(app.api.services.orm, temporal(), app.config.temporal.taskQueue);
    expect([again.created, again.updated, again.deleted]).toEqual([[], [], []]);
  });

  it('when operators run the command, then it repairs the drift and says what it did', async () => {
    const lost = await schedule('Lost');
    await handleOf(lost).delete();
    const { stdout } = await runAdmin(app, ['schedules', 'reconcile']);
    expect(stdout).toContain(`created in Temporal: ${lost}`);
    expect((await handleOf(lost).describe()).state.paused).toBe(false);
  });
});
