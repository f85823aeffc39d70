import { ScheduleNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../../src/api/schemas.ts';
import { Post } from '../../../src/adapters/database/entities/post.ts';
import { scheduleIds } from '../../../src/adapters/temporal/workflow-ids.ts';
import { eventually } from '../../support/eventually.ts';
import { startTestApp, type TestApp } from '../../support/test-app.ts';
import { createTestWorkspace } from '../../support/workspaces.ts';

// A real cron firing on the Temporal dev server (the time-skipping server has no Schedules): two schedules firing
// once a day, at the next whole minute (a cron firing every minute is more often than a plan allows), one paused.
// Within about a minute the active one has run and made a generated post; the paused one has not run at all.

let app: TestApp;
/** What this file created on the run's shared Temporal server: deleted once it is done, so nothing goes on firing. */
const created: Array<{ scheduleId: string; remove: () => Promise<{ status: number }> }> = [];
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  try {
    for (const { scheduleId, remove } of created) {
      expect((await remove()).status).toBe(204);
      await expect(app.api.services.temporal.schedule.getHandle(scheduleId).describe()).rejects.toThrow(ScheduleNotFoundError);
    }
  } finally {
    await app?.stop();
  }
});

describe('a schedule firing on its cron', () => {
  it('when the minute comes, then the active schedule makes a generated post and the paused one makes none', { timeout: 120_000 }, async () => {
    const workspace = await createTestWorkspace(app, 'growth');
    const projectId = (await workspace.client.post<{ id: string }>('/projects', { name: 'Every minute' })).body.id;
    // The next whole minute at least 5 seconds away, so the schedule exists before it comes.
    const firing = new Date(Math.ceil((Date.now() + 5_000) / 60_000) * 60_000);
    const cronExpression = `${firing.getUTCMinutes()} ${firing.getUTCHours()} * * *`;
    const create = async (name: string) => {
      const response = await workspace.client.post<Schemas['CreateScheduleResponse']>('/schedules', {
        name,
        cronExpression,
        promptTemplate: `${name} at {{time}}`,
        projectId,
      });
      const { id } = response.body;
      created.push({ scheduleId: scheduleIds.generation(id), remove: () => workspace.client.delete(`/schedules/${id}`) });
      return response;
    };
    const active = (await create('Ticker')).body;
    const paused = (await create('Sleeper')).body;
    expect((await workspace.client.put(`/schedules/${paused.id}`, { isActive: false })).status).toBe(200);
    expect(active.nextRunAt).toBe(firing.toISOString());

    const post = await eventually(async () => {
      const [found] = await app.api.services.orm.em.fork().find(Post, { projectId, title: { $like: 'Ticker — %' } });
      expect(found?.imageKey).toBeTruthy();
      return found!;
    }, 100_000);
    expect(post.prompt).toMatch(/^Ticker at \d{2}:\d{2}$/);
    // The run records itself on the schedule after its child generation has saved the image, so a moment later.
    const schedule = await eventually(async () => {
      const found = (await workspace.client.get<Schemas['Schedule']>(`/schedules/${active.id}`)).body;
      expect(found.lastRunAt).toBeTruthy();
      return found;
    }, 10_000);
    expect(Date.parse(schedule.lastRunAt!)).toBeGreaterThanOrEqual(Date.parse(active.nextRunAt!));
    expect(schedule.lastRunAt).toMatch(/:00\.000Z$/); // the minute it fired for, not when the run ended

    const sleeper = await app.api.services.temporal.schedule.getHandle(scheduleIds.generation(paused.id)).describe();
    expect(sleeper.info.recentActions).toHaveLength(0);
    expect(await app.api.services.orm.em.fork().count(Post, { projectId, title: { $like: 'Sleeper — %' } })).toBe(0);
  });
});
