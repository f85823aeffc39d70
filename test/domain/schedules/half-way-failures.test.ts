import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../../src/api/schemas.ts';
import { Schedule } from '../../../src/adapters/database/entities/schedule.ts';
import { reconcileSchedules } from '../../../src/domain/schedules/reconcile-schedules.ts';
import type { ReconcileReport } from '../../../workflows/contracts/reconcile-schedules.ts';
import { startTemporalDevServer, type TemporalDevServer } from '../../../src/local/embedded/temporal-dev-server.ts';
import { scheduleIds } from '../../../src/adapters/temporal/workflow-ids.ts';
import { eventually } from '../../support/eventually.ts';
import { startAppWithWorkspace } from '../../support/app-with-workspace.ts';
import type { TestApp } from '../../support/test-app.ts';
import type { TestWorkspace } from '../../support/workspaces.ts';

// A change to a schedule touches two systems. These tests break it half-way, for real: Temporal stopped before it
// is asked, and PostgreSQL refusing the commit after Temporal said yes (a deferred constraint trigger). Neither may
// leave a Temporal Schedule without its row or a row without its Temporal Schedule that reconcile cannot repair.

let temporal: TemporalDevServer;
let temporalData: string;
let app: TestApp;
let workspace: TestWorkspace;

beforeAll(async () => {
  temporalData = await mkdtemp(join(tmpdir(), 'half-way-'));
  temporal = await startTemporalDevServer({ headless: true, databaseFile: join(temporalData, 'temporal.sqlite') });
  // The deadline on Temporal calls, which the first test waits out once, with Temporal stopped: short, but not so short
  // that this file's own Temporal server, on a machine busy with the rest of the suite, misses it while up (a 503 where
  // the later tests expect the commit's 500).
  ({ app, workspace } = await startAppWithWorkspace({ env: { TEMPORAL_ADDRESS: temporal.address, TEMPORAL_CALL_TIMEOUT_SECONDS: '10' } }));
});
afterAll(async () => {
  await app?.stop();
  await temporal?.stop();
  if (temporalData) await rm(temporalData, { recursive: true, force: true });
});

const em = () => app.api.services.orm.em.fork();
// No grace window: these schedules were changed a moment ago, by the test.
const reconcile = () => reconcileSchedules(app.api.services, { graceMs: 0 });
// How long Temporal's list of schedules may take to show a change while the machine is busy.
const listCatchesUpMs = 30_000;
const noDrift: Partial<ReconcileReport> = { created: [], updated: [], deleted: [], failed: [] };
const temporalScheduleIds = async () => {
  const ids: string[] = [];
  for await (const summary of app.api.services.temporal.schedule.list({ query: `workspaceId = "${workspace.id}"` })) ids.push(summary.scheduleId);
  return ids.sort();
};

async function createSchedule(name: string, promptTemplate?: string) {
  const response = await workspace.client.post<{ id: string }>('/schedules', { name, cronExpression: '0 9 * * *', promptTemplate });
  expect(response.status).toBe(201);
  return response.body.id;
}

describe('Temporal unreachable', () => {
  it('when changes find Temporal down, then each answers 503 and the database is as before; reads answer from the database', { timeout: 90_000 }, async () => {
    const kept = await createSchedule('Kept');
    const alsoKept = await createSchedule('Also kept');
    await temporal.stop();

    // All at once: each change waits out the deadline on Temporal.
    const [created, updated, deleted, listed, read] = await Promise.all([
      workspace.client.post<Schemas['Problem']>('/schedules', { name: 'Never', cronExpression: '0 9 * * *' }),
      workspace.client.put<Schemas['Problem']>(`/schedules/${kept}`, { cronExpression: '0 10 * * *' }),
      workspace.client.delete<Schemas['Problem']>(`/schedules/${alsoKept}`),
      workspace.client.get<Schemas['ScheduleListItem'][]>('/schedules'),
      workspace.client.get<Schemas['Schedule']>(`/schedules/${kept}`),
    ]);
    for (const response of [created, updated, deleted]) {
      expect(response.status).toBe(503);
      expect(response.body.detail).toContain('Temporal did not confirm that it would accept the schedule change');
    }
    expect(listed.status).toBe(200);
    expect(listed.body.map((item) => [item.name, item.nextRunAt])).toEqual([
      ['Also kept', expect.stringMatching(/T09:00:00\.000Z$/)],
      ['Kept', expect.stringMatching(/T09:00:00\.000Z$/)],
    ]);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ cronExpression: '0 9 * * *', nextRunAt: expect.stringMatching(/T09:00:00\.000Z$/), lastRunAt: null });
    const rows = await em().find(Schedule, { workspaceId: workspace.id }, { orderBy: { createdAt: 'asc' } });
    expect(rows.map((row) => [row.id, row.cronExpression])).toEqual([
      [kept, '0 9 * * *'],
      [alsoKept, '0 9 * * *'],
    ]);

    temporal = await startTemporalDevServer({
      headless: true,
      port: Number(temporal.address.split(':')[1]),
      databaseFile: join(temporalData, 'temporal.sqlite'),
    });
    expect(await reconcile()).toMatchObject(noDrift);
    expect(await temporalScheduleIds()).toEqual([kept, alsoKept].map(scheduleIds.generation).sort());
    for (const id of [kept, alsoKept]) expect((await workspace.client.delete(`/schedules/${id}`)).status).toBe(204);
    // Temporal's list shows the deletes a moment later; the next test reads it as its starting point.
    await eventually(async () => expect(await temporalScheduleIds()).toEqual([]), listCatchesUpMs);
  });
});

describe('the commit refused after Temporal accepted', { timeout: 90_000 }, () => {
  // Fails the transaction at COMMIT for marked rows: a new schedule named "fail at commit", a change to the cron
  // 13 13 13 * *, the deletion of a schedule whose template is "fail at commit".
  beforeAll(async () => {
    await em().getConnection().execute(`
      create function fail_marked_schedules() returns trigger language plpgsql as $$
      begin
        if (tg_op = 'INSERT' and new.name = 'fail at commit')
          or (tg_op = 'UPDATE' and new.cron_expression = '13 13 13 * *')
          or (tg_op = 'DELETE' and old.prompt_template = 'fail at commit') then
          raise exception 'injected failure at commit';
        end if;
        return null;
      end $$;
      create constraint trigger fail_at_commit after insert or update or delete on schedules
        deferrable initially deferred for each row execute function fail_marked_schedules();`);
  });

  it('when a create fails at commit, then its Temporal Schedule is taken back', async () => {
    const before = await temporalScheduleIds();
    const response = await workspace.client.post<Schemas['Problem']>('/schedules', { name: 'fail at commit', cronExpression: '0 9 * * *' });
    expect(response.status).toBe(500);
    expect(await em().count(Schedule, { workspaceId: workspace.id, name: 'fail at commit' })).toBe(0);
    // Temporal's list catches up with a change a moment later: once it shows a schedule created after the failed
    // one, it would show the failed one too, had it been left.
    const after = await createSchedule('After the failure');
    await eventually(async () => expect(await temporalScheduleIds()).toContain(scheduleIds.generation(after)), listCatchesUpMs);
    expect(await temporalScheduleIds()).toEqual([...before, scheduleIds.generation(after)].sort());
    expect(await reconcile()).toMatchObject(noDrift);
    expect((await workspace.client.delete(`/schedules/${after}`)).status).toBe(204);
  });

  it('when an update fails at commit, then the row is unchanged and reconcile puts Temporal back in line with it', async () => {
    const id = await createSchedule('Update me');
    expect((await workspace.client.put(`/schedules/${id}`, { cronExpression: '13 13 13 * *' })).status).toBe(500);
    expect((await em().findOneOrFail(Schedule, id)).cronExpression).toBe('0 9 * * *');

    // Reconcile picks its candidates from Temporal's list of schedules, which shows a change a moment later.
    await eventually(async () => expect(await reconcile()).toMatchObject({ ...noDrift, updated: [id] }), listCatchesUpMs);
    const read = await workspace.client.get<Schemas['Schedule']>(`/schedules/${id}`);
    expect(read.body.nextRunAt).toMatch(/T09:00:00\.000Z$/);
  });

  it('when a delete fails at commit, then the row stays and reconcile gives it back its Temporal Schedule', async () => {
    const id = await createSchedule('Delete me', 'fail at commit');
    expect((await workspace.client.delete(`/schedules/${id}`)).status).toBe(500);
    expect(await em().count(Schedule, { id })).toBe(1);

    await eventually(async () => expect(await reconcile()).toMatchObject({ ...noDrift, created: [id] }), listCatchesUpMs);
    // The list comes from Temporal's visibility store, which catches up with a change a moment later.
    await eventually(async () => expect(await temporalScheduleIds()).toContain(scheduleIds.generation(id)), listCatchesUpMs);
  });
});
