import { LockMode } from '@mikro-orm/postgresql';
import type { ScheduleSummary } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Schedule } from '../../../src/adapters/database/entities/schedule.ts';
import { newId } from '../../../src/adapters/database/new-id.ts';
import { reconcileSchedules } from '../../../src/domain/schedules/reconcile-schedules.ts';
import { noteOf, temporalScheduleOptions, updateTemporalSchedule } from '../../../src/domain/schedules/temporal-schedule.ts';
import { scheduleIds } from '../../../src/adapters/temporal/workflow-ids.ts';
import { runAdmin } from '../../support/admin-cli.ts';
import { eventually } from '../../support/eventually.ts';
import { startAppWithWorkspace } from '../../support/app-with-workspace.ts';
import type { TestApp } from '../../support/test-app.ts';
import type { TestWorkspace } from '../../support/workspaces.ts';

// Drift between the database and Temporal, as a crash half-way through a change would leave it, repaired by the
// reconcile step (the database wins), both as a function and as the operators' command; and changes under way
// while it runs, which it must leave alone.

let app: TestApp;
let workspace: TestWorkspace;

beforeAll(async () => {
  ({ app, workspace } = await startAppWithWorkspace());
});
afterAll(() => app?.stop());

const temporal = () => app.api.services.temporal;
const em = () => app.api.services.orm.em.fork();
const handleOf = (id: string) => temporal().schedule.getHandle(scheduleIds.generation(id));

async function schedule(name: string): Promise<string> {
  return (await workspace.client.post<{ id: string }>('/schedules', { name, cronExpression: '0 9 * * *' })).body.id;
}

/** Temporal's list of this workspace's schedules (what reconcile picks its candidates from), by schedule id. */
async function listed(): Promise<Map<string, ScheduleSummary>> {
  const summaries = new Map<string, ScheduleSummary>();
  for await (const summary of temporal().schedule.list({ query: `workspaceId = "${workspace.id}"` })) summaries.set(summary.scheduleId, summary);
  return summaries;
}

/** A row as the api would make it, not yet saved. */
function unsavedRow(name: string): Schedule {
  const row = em().create(Schedule, { workspaceId: workspace.id, name, cronExpression: '0 9 * * *', isActive: true }, { persist: false });
  row.id = newId();
  row.createdAt = new Date();
  row.updatedAt = row.createdAt;
  return row;
}

/** Makes the row look last changed long ago (past the grace window). */
async function lastChangedLongAgo(id: string): Promise<void> {
  await em().getConnection().execute(`update schedules set updated_at = now() - interval '1 hour' where id = ?`, [id]);
}

describe('reconcile', () => {
  it('when a Temporal Schedule is missing, differs, or has no row, then reconcile creates, updates and deletes to match the database', async () => {
    const missing = await schedule('Missing in Temporal');
    const drifted = await schedule('Paused behind our back');
    const fine = await schedule('In agreement');
    await handleOf(missing).delete();
    await handleOf(drifted).pause('an operator paused it in the UI');
    // A Temporal Schedule of ours whose row never committed (the crash between create and commit).
    const orphanRow = unsavedRow('Orphan');
    await temporal().schedule.create(temporalScheduleOptions(orphanRow, app.config.temporal.taskQueue, 'growth'));
    // Reconcile picks its candidates from Temporal's list of schedules, which is eventually consistent: a change of
    // a moment ago may not show yet (the next reconcile would find it).
    await eventually(async () => {
      const summaries = await listed();
      expect(summaries.has(scheduleIds.generation(orphanRow.id))).toBe(true);
      expect(summaries.has(scheduleIds.generation(missing))).toBe(false);
      expect(summaries.get(scheduleIds.generation(drifted))?.state.paused).toBe(true);
    });

    // No grace window: everything here changed a moment ago.
    const report = await reconcileSchedules(app.api.services, { graceMs: 0 });
    expect(report).toMatchObject({ created: [missing], updated: [drifted], deleted: [orphanRow.id], skipped: [], failed: [] });
    expect(report.checked).toBeGreaterThanOrEqual(3);

    expect((await handleOf(missing).describe()).state.paused).toBe(false);
    expect((await handleOf(drifted).describe()).state.paused).toBe(false);
    await expect(handleOf(orphanRow.id).describe()).rejects.toThrow();
    expect((await handleOf(fine).describe()).state.paused).toBe(false);

    const again = await reconcileSchedules(app.api.services, { graceMs: 0 });
    expect([again.created, again.updated, again.deleted]).toEqual([[], [], []]);
  });

  it('when Temporal refuses to create one schedule, then it is reported and the others are still repaired', async () => {
    // A row Temporal cannot take (a cron only an older validator accepted): its create fails on every run.
    const refused = unsavedRow('Refused by Temporal');
    refused.cronExpression = '61 25 * * *';
    await em().insert(refused);
    const lost = await schedule('Lost after it');
    await handleOf(lost).delete();
    await Promise.all([lastChangedLongAgo(refused.id), lastChangedLongAgo(lost)]);
    await eventually(async () => expect((await listed()).has(scheduleIds.generation(lost))).toBe(false));

    const report = await reconcileSchedules(app.api.services);
    expect(report.created).toEqual([lost]);
    expect(report.failed).toEqual([{ scheduleId: refused.id, error: expect.stringMatching(/.+/) }]);
    expect((await handleOf(lost).describe()).state.paused).toBe(false);
    await em().nativeDelete(Schedule, { id: refused.id });
  });

  it('when operators run the command, then it repairs the drift and says what it did', async () => {
    const lost = await schedule('Lost');
    await handleOf(lost).delete();
    await lastChangedLongAgo(lost);
    await eventually(async () => expect((await listed()).has(scheduleIds.generation(lost))).toBe(false));
    const { stdout } = await runAdmin(app, ['schedules', 'reconcile']);
    expect(stdout).toContain(`created in Temporal: ${lost}`);
    expect((await handleOf(lost).describe()).state.paused).toBe(false);
  });
});

describe('reconcile beside changes under way', () => {
  it('when a schedule is created and its row commits after reconcile listed Temporal and read the rows, then its Temporal Schedule is kept', async () => {
    const row = unsavedRow('Created meanwhile');
    // What createSchedule does, held open between its two steps: the Temporal Schedule first, then the row, whose
    // insert here waits uncommitted in a transaction while reconcile runs.
    await temporal().schedule.create(temporalScheduleOptions(row, app.config.temporal.taskQueue, 'growth'));
    await eventually(async () => expect((await listed()).has(scheduleIds.generation(row.id))).toBe(true));
    let commit!: () => void;
    const committed = new Promise<void>((resolveCommit) => (commit = resolveCommit));
    let inserted!: () => void;
    const insertedUncommitted = new Promise<void>((resolveInsert) => (inserted = resolveInsert));
    const insert = em().transactional(async (tx) => {
      await tx.insert(Schedule, row);
      inserted();
      await committed;
    });
    await insertedUncommitted;

    const report = await reconcileSchedules(app.api.services);
    commit();
    await insert;
    expect(report.deleted).not.toContain(row.id);
    expect(report.skipped).toContain(row.id);
    expect((await handleOf(row.id).describe()).state.paused).toBe(false);
    const after = await reconcileSchedules(app.api.services);
    expect(after.deleted).not.toContain(row.id);
  });

  it.each<[string, { isActive?: boolean; cronExpression?: string }]>([
    ['paused', { isActive: false }],
    ['given another cron', { cronExpression: '30 7 * * 1' }],
  ])('when a schedule is %s while reconcile runs, then reconcile waits for the change and does not revert it', async (_change, change) => {
    const id = await schedule(`Changed while reconciling (${JSON.stringify(change)})`);
    await lastChangedLongAgo(id);
    // What updateSchedule does, held open before its commit: the row locked and changed, Temporal updated.
    let commit!: () => void;
    const committed = new Promise<void>((resolveCommit) => (commit = resolveCommit));
    let applied!: () => void;
    const appliedUncommitted = new Promise<void>((resolveApply) => (applied = resolveApply));
    const update = em().transactional(async (tx) => {
      const row = await tx.findOneOrFail(Schedule, id, { lockMode: LockMode.PESSIMISTIC_WRITE });
      Object.assign(row, change);
      await updateTemporalSchedule(temporal(), row, app.config.temporal.taskQueue, 'growth');
      applied();
      await committed;
    });
    await appliedUncommitted;
    const wanted = noteOf({ ...(await em().findOneOrFail(Schedule, id)), ...change }, 'growth');
    // Temporal's list shows the change, so reconcile, reading the row as committed (before the change), takes the
    // schedule for drifted; it must then wait for the row's lock.
    await eventually(async () => expect((await listed()).get(scheduleIds.generation(id))?.state.note).toBe(wanted));
    const reconciling = reconcileSchedules(app.api.services, { graceMs: 0 });
    await eventually(async () => expect(await lockWaits()).toBeGreaterThan(0));
    commit();
    await update;

    const report = await reconciling;
    expect(report.updated).not.toContain(id);
    const description = await handleOf(id).describe();
    expect(description.state.note).toBe(wanted);
    expect(description.state.paused).toBe(change.isActive === false);
  });

  it('when a row was changed within the grace window and Temporal differs, then reconcile leaves it for the next run', async () => {
    const id = await schedule('Changed a moment ago');
    // A change the database holds and Temporal does not show yet (the api's update, seen from another replica).
    await em().nativeUpdate(Schedule, { id }, { cronExpression: '15 8 * * *', updatedAt: new Date() });
    const row = await em().findOneOrFail(Schedule, id);
    await handleOf(id).pause('drifted');
    await eventually(async () => expect((await listed()).get(scheduleIds.generation(id))?.state.paused).toBe(true));

    const report = await reconcileSchedules(app.api.services);
    expect(report.skipped).toContain(id);
    expect(report.updated).not.toContain(id);
    expect((await handleOf(id).describe()).state.note).not.toBe(noteOf(row, 'growth'));
  });
});

/** Sessions of this test's database waiting for a row lock. */
async function lockWaits(): Promise<number> {
  const [row] = await em()
    .getConnection()
    .execute<Array<{ waiting: number }>>(
      'select count(*)::int as waiting from pg_locks l join pg_stat_activity a on a.pid = l.pid where not l.granted and a.datname = current_database()',
    );
  return row?.waiting ?? 0;
}
