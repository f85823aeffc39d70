import type { EntityManager } from '@mikro-orm/postgresql';
import { BrandKit } from '../../adapters/database/entities/brand-kit.ts';
import { Post } from '../../adapters/database/entities/post.ts';
import { Project } from '../../adapters/database/entities/project.ts';
import { Schedule } from '../../adapters/database/entities/schedule.ts';
import type { Workspace } from '../../adapters/database/entities/workspace.ts';
import { failureTypes } from '../../adapters/temporal/failure-types.ts';
import { recordUsage } from '../usage/record-usage.ts';
import { WorkRefused } from '../work-refused.ts';
import { lockWorkspace } from '../workspaces/lock-workspace.ts';
import { countGenerations, monthStartOf } from '../usage/count-generations.ts';
import { hasFeature, requireGenerationBudget, requireQuota, stoppedByPlan } from '../workspaces/plans.ts';
import { renderPromptTemplate } from './prompt-template.ts';

/** Where posts of schedules without a project go; created on first use. */
const scheduledPostsProjectName = 'Scheduled posts';

export type ScheduledRun = { scheduleId: string; postId: string; runAt: string };
/** The run's post: what its generation needs, and what the Temporal UI finds the generation by. */
export type ScheduledPost = { postId: string; prompt: string; workspaceId: string; projectId: string; title: string };

/**
 * Creates the post of one run, in the caller's transaction, with the id the run chose (a retried attempt finds it
 * instead of making another) and a `ScheduledGeneration` usage item. A run whose project or brand kit is gone or
 * archived fails for good, and so does a run of a workspace no longer on a plan with schedules (the plan is read when
 * the run runs, under the workspace lock a plan change also takes, so an upgrade resumes the runs and nothing is made
 * on Starter), and a run past the plan's monthly generation budget.
 */
export async function createScheduledPost(em: EntityManager, input: ScheduledRun): Promise<ScheduledPost> {
  const existing = await em.findOne(Post, input.postId);
  if (existing)
    return { postId: existing.id, prompt: existing.prompt, workspaceId: existing.workspaceId, projectId: existing.projectId, title: existing.title };
  const schedule = await em.findOne(Schedule, input.scheduleId);
  if (!schedule) throw new WorkRefused(failureTypes.scheduleDeleted, `Schedule ${input.scheduleId} was deleted.`);
  const workspace = await lockWorkspace(em, schedule.workspaceId);
  if (!hasFeature(workspace.plan, 'schedules')) throw new WorkRefused(failureTypes.planUpgradeRequired, stoppedByPlan(workspace.plan, 'schedules'));
  // A run past the month's generation budget makes no post, with the budget's words (final, as the quota below).
  const monthStart = monthStartOf(new Date());
  requireGenerationBudget(workspace.plan, await countGenerations(em, schedule.workspaceId, monthStart), monthStart);
  const projectId = await projectOf(em, schedule, workspace);
  if (schedule.brandKitId && !(await em.findOne(BrandKit, { id: schedule.brandKitId, workspaceId: schedule.workspaceId }))) {
    throw new WorkRefused(failureTypes.brandKitUnavailable, `The schedule's brand kit ${schedule.brandKitId} was deleted; set another one or none.`);
  }
  const runAt = new Date(input.runAt);
  const prompt = renderPromptTemplate(schedule.promptTemplate || schedule.name, runAt);
  const title = `${schedule.name} — ${runAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`.slice(0, 200);
  em.create(Post, { id: input.postId, workspaceId: schedule.workspaceId, projectId, title, prompt, brandKitId: schedule.brandKitId ?? null });
  recordUsage(em, {
    workspaceId: schedule.workspaceId,
    type: 'ScheduledGeneration',
    description: `Schedule "${schedule.name}" created the post "${title}".`,
    postId: input.postId,
  });
  return { postId: input.postId, prompt, workspaceId: schedule.workspaceId, projectId, title };
}

async function projectOf(em: EntityManager, schedule: Schedule, workspace: Workspace): Promise<string> {
  if (schedule.projectId) {
    const project = await em.findOne(Project, { id: schedule.projectId, workspaceId: schedule.workspaceId });
    if (!project) throw new WorkRefused(failureTypes.projectUnavailable, `The schedule's project ${schedule.projectId} was deleted; the run made no post.`);
    if (project.status === 'archived') {
      throw new WorkRefused(failureTypes.projectUnavailable, `The schedule's project "${project.name}" is archived; re-activate it for runs to make posts.`);
    }
    return project.id;
  }
  const existing = await em.findOne(Project, { workspaceId: schedule.workspaceId, name: scheduledPostsProjectName, status: 'active' });
  if (existing) return existing.id;
  // A project like any other: it counts against the plan's quota (the workspace is locked); past it the run fails
  // for good with the quota's words (the activity's database-work boundary makes the AppError final).
  requireQuota(workspace.plan, 'activeProjects', await em.count(Project, { workspaceId: schedule.workspaceId, status: 'active' }));
  return em.create(Project, {
    workspaceId: schedule.workspaceId,
    name: scheduledPostsProjectName,
    description: 'Posts made by schedules without a project.',
    status: 'active',
  }).id;
}
