import { ScheduleNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { Post } from '../../src/adapters/database/entities/post.ts';
import { Project } from '../../src/adapters/database/entities/project.ts';
import { UsageActivity } from '../../src/adapters/database/entities/usage-activity.ts';
import { Schedule } from '../../src/adapters/database/entities/schedule.ts';
import { nextCronTimes } from '../../src/domain/schedules/cron-expression.ts';
import { reconcileSchedules } from '../../src/domain/schedules/reconcile-schedules.ts';
import { changePlan } from '../../src/domain/workspaces/change-plan.ts';
import { planRules } from '../../src/domain/workspaces/plans.ts';
import { searchAttributes } from '../../src/adapters/temporal/search-attributes.ts';
import { scheduleIds, workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import { eventually } from '../support/eventually.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import type { TestApp } from '../support/test-app.ts';
import { createTestWorkspace, type TestWorkspace } from '../support/workspaces.ts';

type Problem = Schemas['Problem'];
type Sched = Schemas['Schedule'];

let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;

beforeAll(async () => {
  ({ app, workspace, projectId } = await startAppWithWorkspace({ project: 'Scheduled' }));
});
afterAll(() => app?.stop());

const temporalHandle = (id: string) => app.api.services.temporal.schedule.getHandle(scheduleIds.generation(id));

/** The Temporal Schedules of the workspace, by its search attribute (Temporal's list lags a moment behind). */
async function temporalScheduleIdsOf(workspaceId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const summary of app.api.services.temporal.schedule.list({ query: `${searchAttributes.workspaceId.name} = '${workspaceId}'` }))
    ids.push(summary.scheduleId);
  return ids;
}

async function createSchedule(body: Record<string, unknown> = {}, client = workspace.client) {
  const response = await client.post<Schemas['CreateScheduleResponse']>('/schedules', {
    name: 'Daily tip',
    cronExpression: '0 9 * * *',
    promptTemplate: 'A tip for {{weekday}}, {{date}}',
    projectId,
    ...body,
  });
  expect(response.status).toBe(201);
  return response.body;
}

describe('POST /schedules', () => {
  it('when created, then a Temporal Schedule runs it and nextRunAt is the next time the cron matches (UTC)', async () => {
    const before = new Date();
    const created = await createSchedule({ cronExpression: '*/15 9-17 * * 1-5' });
    expect(created).toEqual({ id: expect.any(String), name: 'Daily tip', cronExpression: '*/15 9-17 * * 1-5', isActive: true, nextRunAt: expect.any(String) });
    const expected = nextCronTimes('*/15 9-17 * * 1-5', before, 1)[0]!;
    expect(created.nextRunAt).toBe(expected.toISOString());

    const description = await temporalHandle(created.id).describe();
    expect(description.state.paused).toBe(false);
    expect(description.state.note).toContain(`workspace ${workspace.id}`);
    expect(description.memo).toMatchObject({ workspaceId: workspace.id, scheduleId: created.id, name: 'Daily tip' });
    expect(description.info.nextActionTimes[0]).toEqual(expected);
  });

  it.each([
    ['day of month and day of week both restricted (both must match)', '0 9 13 * 5'],
    ['a leap day', '0 0 29 2 *'],
    ['steps, ranges and names', '*/20 */5 1-10 */2 MON-FRI'],
    ['Sunday as 7 in two months', '0 12 * JAN,JUL 7'],
    ['a day that never comes with a weekday', '0 0 31 2 1'],
  ])('when created with %s, then nextRunAt is the first run Temporal reports', async (_case, cronExpression) => {
    const created = await createSchedule({ cronExpression });
    const [temporalNext] = (await temporalHandle(created.id).describe()).info.nextActionTimes;
    expect(created.nextRunAt).toBe(temporalNext?.toISOString() ?? null);
  });

  it.each([
    ['no name', { name: undefined }, '/name', 'name'],
    ['no cron', { cronExpression: undefined }, '/cronExpression', 'cronExpression'],
    ['four cron fields', { cronExpression: '0 9 * *' }, '/cronExpression', 'needs 5 fields'],
    ['six cron fields', { cronExpression: '0 0 9 * * *' }, '/cronExpression', 'needs 5 fields'],
    ['minute 61', { cronExpression: '61 * * * *' }, '/cronExpression', 'minute field "61"'],
    ['hour 25', { cronExpression: '0 25 * * *' }, '/cronExpression', 'hour field "25"'],
    ['a macro', { cronExpression: '@daily' }, '/cronExpression', 'needs 5 fields'],
    ['an impossible date', { cronExpression: '0 0 31 2 *' }, '/cronExpression', 'cronExpression'],
    ['an unknown placeholder', { promptTemplate: 'News of {{tomorrow}}' }, '/promptTemplate', '{{tomorrow}}'],
    ['a placeholder named like an inherited member', { promptTemplate: 'News of {{__proto__}}' }, '/promptTemplate', '{{__proto__}}'],
    ['a template over 5000 characters', { promptTemplate: 'x'.repeat(5001) }, '/promptTemplate', 'promptTemplate'],
  ])('when the body has %s, then it answers 400 naming it', async (_case, overrides, path, words) => {
    const body = Object.fromEntries(Object.entries({ name: 'N', cronExpression: '0 9 * * *', ...overrides }).filter(([, value]) => value !== undefined));
    const response = await workspace.client.post<Problem>('/schedules', body);
    expect(response.status).toBe(400);
    expect(response.body.errors?.map((error) => error.path)).toContain(path);
    expect([response.body.detail, ...(response.body.errors ?? []).map((error) => error.message)].join(' ')).toContain(words);
  });

  it('when the project or brand kit belongs to another workspace, then it answers 404 and nothing is created', async () => {
    const stranger = await createTestWorkspace(app, 'growth');
    const theirs = (await stranger.client.post<{ id: string }>('/projects', { name: 'Theirs' })).body.id;
    expect((await workspace.client.post('/schedules', { name: 'N', cronExpression: '0 9 * * *', projectId: theirs })).status).toBe(404);
    expect((await stranger.client.get<Sched[]>('/schedules')).body).toEqual([]);
  });

  it('when a Starter workspace calls any schedule operation, then it answers 403 plan-upgrade-required, as the specification says', async () => {
    const starter = await createTestWorkspace(app, 'starter');
    const someId = '018f0000-0000-7000-8000-000000000000';
    for (const response of [
      await starter.client.get<Problem>('/schedules'),
      await starter.client.post<Problem>('/schedules', { name: 'N', cronExpression: '0 9 * * *' }),
      await starter.client.get<Problem>(`/schedules/${someId}`),
      await starter.client.put<Problem>(`/schedules/${someId}`, { isActive: false }),
      await starter.client.delete<Problem>(`/schedules/${someId}`),
    ]) {
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ type: '/problems/plan-upgrade-required', requiredPlan: 'growth' });
    }
  });
});

describe('budgets of the Growth plan', () => {
  it.each([
    ['every minute', '* * * * *', 1],
    ['every 5 minutes', '*/5 * * * *', 5],
    ['twice 10 minutes apart', '0,10 9 * * *', 10],
    ['10 minutes apart across midnight', '0,50 0,23 * * *', 10],
  ])(
    'when the cron fires %s, then create and update answer 403 plan-limit-reached naming cronExpression and the 15-minute minimum',
    async (_case, cronExpression, minutes) => {
      const created = await createSchedule({ cronExpression: '0 9 * * *' });
      for (const response of [
        await workspace.client.post<Problem>('/schedules', { name: 'Too often', cronExpression }),
        await workspace.client.put<Problem>(`/schedules/${created.id}`, { cronExpression }),
      ]) {
        expect(response.status).toBe(403);
        expect(response.body).toMatchObject({ type: '/problems/plan-limit-reached', quota: { name: 'scheduleIntervalMinutes', plan: 'growth', limit: 15 } });
        expect(response.body.detail).toContain(`cronExpression "${cronExpression}" fires ${minutes} minute(s) apart`);
      }
      expect((await workspace.client.get<Sched>(`/schedules/${created.id}`)).body.cronExpression).toBe('0 9 * * *');
    },
  );

  it.each([
    ['every 15 minutes', '*/15 * * * *'],
    ['hourly', '0 * * * *'],
    ['15 minutes apart across midnight', '45 23 * * *'],
  ])('when the cron fires %s, then it is accepted', async (_case, cronExpression) => {
    expect((await workspace.client.post('/schedules', { name: 'Often enough', cronExpression })).status).toBe(201);
  });

  it('when 53 schedules are created at once in a workspace, then exactly 50 are (the plan limit) and the rest answer 403 plan-limit-reached', async () => {
    const own = await createTestWorkspace(app, 'growth');
    const limit = planRules.growth.limits.schedules!;
    const answers = await Promise.all(
      Array.from({ length: limit + 3 }, (_, index) => own.client.post<Problem>('/schedules', { name: `Daily ${index}`, cronExpression: '0 9 * * *' })),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(limit);
    const refused = answers.filter((answer) => answer.status === 403);
    expect(refused).toHaveLength(3);
    for (const answer of refused)
      expect(answer.body).toMatchObject({ type: '/problems/plan-limit-reached', quota: { name: 'schedules', plan: 'growth', limit } });
    expect(await app.api.services.orm.em.fork().count(Schedule, { workspaceId: own.id })).toBe(limit);
    // Each refused create stopped before Temporal: the workspace's Temporal Schedules are the rows'.
    await eventually(async () => expect(await temporalScheduleIdsOf(own.id)).toHaveLength(limit));
  }, 120_000);
});

describe('GET, PUT and DELETE /schedules', () => {
  it('when read, paused, resumed, changed and deleted, then the API and Temporal agree at every step', async () => {
    const created = await createSchedule();
    const read = await workspace.client.get<Sched>(`/schedules/${created.id}`);
    expect(read.body).toEqual({
      id: created.id,
      name: 'Daily tip',
      cronExpression: '0 9 * * *',
      isActive: true,
      promptTemplate: 'A tip for {{weekday}}, {{date}}',
      projectId,
      brandKitId: null,
      lastRunAt: null,
      nextRunAt: created.nextRunAt,
      lastRunError: null,
      createdAt: expect.any(String),
    });

    const paused = await workspace.client.put<Sched>(`/schedules/${created.id}`, { isActive: false });
    expect(paused.body).toMatchObject({ isActive: false, nextRunAt: null });
    expect((await temporalHandle(created.id).describe()).state.paused).toBe(true);

    const changed = await workspace.client.put<Sched>(`/schedules/${created.id}`, {
      isActive: true,
      cronExpression: '30 6 * * 0',
      name: 'Sunday',
      promptTemplate: null,
    });
    expect(changed.body).toMatchObject({ isActive: true, name: 'Sunday', cronExpression: '30 6 * * 0', promptTemplate: null });
    expect(changed.body.nextRunAt).toBe(nextCronTimes('30 6 * * 0', new Date(), 1)[0]!.toISOString());
    expect((await temporalHandle(created.id).describe()).state.paused).toBe(false);

    const listed = await workspace.client.get<Schemas['ScheduleListItem'][]>('/schedules?pageSize=100');
    expect(listed.body.find((item) => item.id === created.id)).toEqual({
      id: created.id,
      name: 'Sunday',
      cronExpression: '30 6 * * 0',
      isActive: true,
      promptTemplate: null,
      nextRunAt: changed.body.nextRunAt,
    });

    expect((await workspace.client.put(`/schedules/${created.id}`, { cronExpression: '99 * * * *' })).status).toBe(400);
    expect((await workspace.client.get<Sched>(`/schedules/${created.id}`)).body.cronExpression).toBe('30 6 * * 0');

    expect((await workspace.client.delete(`/schedules/${created.id}`)).status).toBe(204);
    expect((await workspace.client.get(`/schedules/${created.id}`)).status).toBe(404);
    await expect(temporalHandle(created.id).describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
  });

  it('when a page of schedules is listed right after each change, then every nextRunAt is what Temporal will do', async () => {
    const own = await createTestWorkspace(app, 'growth');
    const [paused, changed, steady] = [
      await createSchedule({ cronExpression: '0 9 * * *', projectId: undefined }, own.client),
      await createSchedule({ cronExpression: '15 10 * * 1', projectId: undefined }, own.client),
      await createSchedule({ cronExpression: '45 23 1 * *', projectId: undefined }, own.client),
    ];
    const nextRuns = async () =>
      Object.fromEntries((await own.client.get<Schemas['ScheduleListItem'][]>('/schedules')).body.map((item) => [item.id, item.nextRunAt]));
    const temporalNextRun = async (id: string) => {
      const { state, info } = await temporalHandle(id).describe();
      return state.paused ? null : (info.nextActionTimes[0]?.toISOString() ?? null);
    };

    for (const [round, cronExpression] of ['0 12 * * *', '30 7 * * 2', '5 5 5 5 *', '0 0 13 * 5'].entries()) {
      expect((await own.client.put(`/schedules/${paused.id}`, { isActive: round % 2 === 1 })).status).toBe(200);
      expect((await own.client.put(`/schedules/${changed.id}`, { cronExpression })).status).toBe(200);
      const listed = await nextRuns();
      expect(listed[paused.id]).toBe(round % 2 === 1 ? nextCronTimes('0 9 * * *', new Date(), 1)[0]!.toISOString() : null);
      for (const { id } of [paused, changed, steady]) expect(listed[id]).toBe(await temporalNextRun(id));
    }
  });

  it('when the schedule belongs to another workspace, then get, update and delete answer 404 and it keeps running', async () => {
    const stranger = await createTestWorkspace(app, 'growth');
    const theirs = (await stranger.client.post<{ id: string }>('/schedules', { name: 'Theirs', cronExpression: '0 9 * * *' })).body.id;
    expect((await workspace.client.get(`/schedules/${theirs}`)).status).toBe(404);
    expect((await workspace.client.put(`/schedules/${theirs}`, { isActive: false })).status).toBe(404);
    expect((await workspace.client.delete(`/schedules/${theirs}`)).status).toBe(404);
    expect((await temporalHandle(theirs).describe()).state.paused).toBe(false);
  });
});

describe('runs', () => {
  it('when a run is triggered, then it creates a post from the template in the project and generates it', async () => {
    const created = await createSchedule({ promptTemplate: 'Sunrise over the sea on {{weekday}} {{date}}' });
    await temporalHandle(created.id).trigger();
    const post = await eventually(async () => {
      const [found] = await app.api.services.orm.em.fork().find(Post, { projectId, title: { $like: 'Daily tip — %' } });
      expect(found?.imageKey).toBeTruthy();
      return found!;
    }, 30_000);
    const today = new Date();
    expect(post.prompt).toBe(
      `Sunrise over the sea on ${today.toLocaleDateString('en-US', { weekday: 'long', timeZone: 'UTC' })} ${today.toISOString().slice(0, 10)}`,
    );
    expect(post.title).toMatch(/^Daily tip — \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
    expect(await app.api.services.orm.em.fork().count(UsageActivity, { postId: post.id, type: 'ScheduledGeneration' })).toBe(1);
    // The child generation is found in the Temporal UI like any other: by its post, with a summary.
    const child = await app.api.services.temporal.workflow.getHandle(workflowIds.postGenerate(post.id)).describe();
    expect(child.typedSearchAttributes.get(searchAttributes.postId)).toBe(post.id);
    expect(child.typedSearchAttributes.get(searchAttributes.workspaceId)).toBe(workspace.id);
    expect(await child.staticSummary()).toBe(`Generate a 1:1 image for "${post.title}"`);
    const read = await eventually(async () => {
      const body = (await workspace.client.get<Sched>(`/schedules/${created.id}`)).body;
      expect(body.lastRunAt).not.toBeNull();
      return body;
    });
    expect(read.lastRunError).toBeNull();
  });

  it('when a run has finished, then lastRunAt is its firing time from our database, kept while paused, and a paused schedule has no nextRunAt', async () => {
    const own = await createTestWorkspace(app, 'growth');
    const created = await createSchedule({ projectId: undefined }, own.client);
    await temporalHandle(created.id).trigger();
    const ran = await eventually(async () => {
      const body = (await own.client.get<Sched>(`/schedules/${created.id}`)).body;
      expect(body.lastRunAt).not.toBeNull();
      return body;
    }, 30_000);
    // The firing is the time the Temporal Schedule appended to the run's workflow ID.
    const [action] = (await temporalHandle(created.id).describe()).info.recentActions;
    const firing = new Date(action!.action.workflow.workflowId.slice(`scheduled-generation-${created.id}-`.length)).toISOString();
    expect(ran.lastRunAt).toBe(firing);
    expect((await app.api.services.orm.em.fork().findOneOrFail(Schedule, created.id)).lastRunAt?.toISOString()).toBe(firing);

    const paused = await own.client.put<Sched>(`/schedules/${created.id}`, { isActive: false });
    expect(paused.body).toMatchObject({ isActive: false, nextRunAt: null, lastRunAt: firing });

    // Reads answer from the database alone: with the Temporal Schedule gone they still say the same.
    await temporalHandle(created.id).delete();
    expect((await own.client.get<Sched>(`/schedules/${created.id}`)).body).toMatchObject({ isActive: false, nextRunAt: null, lastRunAt: firing });
    expect((await own.client.get<Schemas['ScheduleListItem'][]>('/schedules')).body).toEqual([expect.objectContaining({ id: created.id, nextRunAt: null })]);
    expect((await own.client.delete(`/schedules/${created.id}`)).status).toBe(204);
  }, 60_000);

  it('when the schedule has no project, then its runs go to the "Scheduled posts" project', async () => {
    const own = await createTestWorkspace(app, 'growth');
    const created = (await own.client.post<{ id: string }>('/schedules', { name: 'Loose', cronExpression: '0 9 * * *' })).body;
    await temporalHandle(created.id).trigger();
    const project = await eventually(async () => {
      const found = await app.api.services.orm.em.fork().findOne(Project, { workspaceId: own.id, name: 'Scheduled posts' });
      expect(found).not.toBeNull();
      return found!;
    });
    const posts = await eventually(async () => {
      const list = (await own.client.get<Schemas['PostListItem'][]>(`/posts/project/${project.id}`)).body;
      expect(list).toHaveLength(1);
      return list;
    });
    expect(posts[0]).toMatchObject({ prompt: 'Loose' });
  });

  it('when the project was archived, then the run fails visibly and says why', async () => {
    const archived = (await workspace.client.post<{ id: string }>('/projects', { name: 'Old news' })).body.id;
    const created = await createSchedule({ projectId: archived });
    await workspace.client.put(`/projects/${archived}`, { status: 'archived' });
    await temporalHandle(created.id).trigger();
    const read = await eventually(async () => {
      const body = (await workspace.client.get<Sched>(`/schedules/${created.id}`)).body;
      expect(body.lastRunError).toContain('archived');
      return body;
    });
    expect(read.lastRunAt).not.toBeNull();
    expect(await app.api.services.orm.em.fork().count(Post, { projectId: archived })).toBe(0);
  });
});

describe('a downgrade to Starter', () => {
  it('when a workspace is downgraded, then its schedules are paused in Temporal and kept; an upgrade resumes the active one, and the one the customer paused stays paused', async () => {
    const own = await createTestWorkspace(app, 'growth');
    const running = await createSchedule({ projectId: undefined }, own.client);
    const customerPaused = await createSchedule({ projectId: undefined, name: 'Paused by the customer' }, own.client);
    expect((await own.client.put(`/schedules/${customerPaused.id}`, { isActive: false })).status).toBe(200);

    await changePlan(app.api.services, own.id, 'starter');
    const paused = await eventually(async () => {
      const { state } = await temporalHandle(running.id).describe();
      expect(state.paused).toBe(true);
      return state;
    });
    expect(paused.note).toContain('paused: not on the starter plan');
    expect((await temporalHandle(customerPaused.id).describe()).state.paused).toBe(true);
    expect((await own.client.get<Problem>(`/schedules/${running.id}`)).status).toBe(403);
    const rows = await app.api.services.orm.em.fork().find(Schedule, { workspaceId: own.id }, { orderBy: { name: 'asc' } });
    expect(rows.map(({ id, isActive }) => ({ id, isActive }))).toEqual([
      { id: running.id, isActive: true },
      { id: customerPaused.id, isActive: false },
    ]);
    // Reconciliation computes the same paused state from the row and the plan: nothing to repair.
    const afterDowngrade = await reconcileSchedules(app.api.services, { graceMs: 0 });
    expect([...afterDowngrade.created, ...afterDowngrade.updated]).not.toEqual(expect.arrayContaining([running.id]));
    expect([...afterDowngrade.created, ...afterDowngrade.updated]).not.toEqual(expect.arrayContaining([customerPaused.id]));

    await changePlan(app.api.services, own.id, 'growth');
    await eventually(async () => expect((await temporalHandle(running.id).describe()).state.paused).toBe(false));
    const workflow = await app.api.services.temporal.workflow.getHandle(workflowIds.workspacePlan(own.id)).result();
    expect(workflow).toEqual({ schedules: 2, failed: [], deliveriesStopped: 0 });
    expect((await temporalHandle(customerPaused.id).describe()).state.paused).toBe(true);
    expect((await own.client.get<Sched>(`/schedules/${customerPaused.id}`)).body).toMatchObject({ isActive: false, nextRunAt: null });
    expect((await own.client.get<Sched>(`/schedules/${running.id}`)).body).toMatchObject({ isActive: true, nextRunAt: expect.any(String) });
  });

  it('when a workspace with 3 active projects is downgraded, then a run triggered anyway says why in lastRunError and makes no project or post; the schedule is kept behind 403', async () => {
    const own = await createTestWorkspace(app, 'growth');
    for (const name of ['One', 'Two', 'Three']) await own.client.post('/projects', { name });
    const created = (await own.client.post<{ id: string }>('/schedules', { name: 'Loose', cronExpression: '0 9 * * *' })).body;
    await changePlan(app.api.services, own.id, 'starter');

    await temporalHandle(created.id).trigger();
    const read = await eventually(async () => {
      const row = await app.api.services.orm.em.fork().findOneOrFail(Schedule, created.id);
      expect(row.lastRunError).toContain('need the Growth plan');
      return row;
    });
    expect(read.lastRunError).toContain('after an upgrade');
    const em = app.api.services.orm.em.fork();
    expect(await em.count(Project, { workspaceId: own.id })).toBe(3);
    expect(await em.count(Post, { workspaceId: own.id })).toBe(0);

    for (const response of [
      await own.client.get<Problem>('/schedules'),
      await own.client.put<Problem>(`/schedules/${created.id}`, { isActive: false }),
      await own.client.delete<Problem>(`/schedules/${created.id}`),
    ]) {
      expect(response.body.type).toBe('/problems/plan-upgrade-required');
    }
    expect(await em.count(Schedule, { id: created.id })).toBe(1);
  });

  it('when the workspace is upgraded again, then the next run works and clears lastRunError', async () => {
    const own = await createTestWorkspace(app, 'growth');
    const project = (await own.client.post<{ id: string }>('/projects', { name: 'Resumed' })).body.id;
    const created = await createSchedule({ projectId: project }, own.client);
    await changePlan(app.api.services, own.id, 'starter');
    await temporalHandle(created.id).trigger();
    await eventually(async () => expect((await app.api.services.orm.em.fork().findOneOrFail(Schedule, created.id)).lastRunError).toContain('Growth plan'));
    // The run records its error a moment before it ends; a trigger while it still runs would be skipped (overlap).
    await eventually(async () => expect((await temporalHandle(created.id).describe()).info.runningActions).toEqual([]));
    // A run's workflow ID ends in its start time to the second: a second trigger within the same second as the first
    // would collide with it and be dropped.
    await new Promise((resolveWait) => setTimeout(resolveWait, 1_100));

    await changePlan(app.api.services, own.id, 'growth');
    await temporalHandle(created.id).trigger();
    await eventually(async () => {
      const [post] = await app.api.services.orm.em.fork().find(Post, { projectId: project });
      expect(post?.imageKey).toBeTruthy();
      expect((await own.client.get<Sched>(`/schedules/${created.id}`)).body.lastRunError).toBeNull();
    }, 30_000);
  }, 60_000);
});
