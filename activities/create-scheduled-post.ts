import { ApplicationFailure } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BrandKit } from '../src/data/entities/brand-kit.ts';
import { Post } from '../src/data/entities/post.ts';
import { Project } from '../src/data/entities/project.ts';
import { Schedule } from '../src/data/entities/schedule.ts';
import { renderPromptTemplate } from '../src/domain/schedules/prompt-template.ts';
import { recordUsage } from '../src/domain/usage/record-usage.ts';
import { lockWorkspace } from '../src/domain/workspaces/lock-workspace.ts';
import { hasFeature, requireQuota, stoppedByPlan } from '../src/domain/workspaces/plans.ts';
import type { Workspace } from '../src/data/entities/workspace.ts';
import type { ActivityDeps } from './index.ts';
import { failureTypes } from '../src/temporal/failure-types.ts';

/** Where posts of schedules without a project go; created on first use. */
export const scheduledPostsProjectName = 'Scheduled posts';

/** The run's post: what its generation needs, and what the Temporal UI finds the generation by. */
export type ScheduledPost = { postId: string; prompt: string; workspaceId: string; projectId: string; title: string };

/**
 * Creates the post of one run, with the id the run chose (a retried attempt finds it instead of making another)
 * and a `ScheduledGeneration` usage item. A run whose project or brand kit is gone or archived fails for good, and so
 * does a run of a workspace no longer on a plan with schedules (the plan is read when the run runs, under the
 * workspace lock a plan change also takes, so an upgrade resumes the runs and nothing is made on Starter).
 */
export async function createScheduledPost(
  deps: ActivityDeps,
  input: { scheduleId: string; postId: string; runAt: string },
): Promise<ScheduledPost> {
  return deps.orm.em.fork().transactional(async (em) => {
    const existing = await em.findOne(Post, input.postId);
    if (existing) return { postId: existing.id, prompt: existing.prompt, workspaceId: existing.workspaceId, projectId: existing.projectId, title: existing.title };
    const schedule = await em.findOne(Schedule, input.scheduleId);
    if (!schedule) throw ApplicationFailure.nonRetryable(`Schedule ${input.scheduleId} was deleted.`, failureTypes.scheduleDeleted);
    const workspace = await lockWorkspace(em, schedule.workspaceId);
    if (!hasFeature(workspace.plan, 'schedules')) throw ApplicationFailure.nonRetryable(stoppedByPlan(workspace.plan, 'schedules'), failureTypes.planUpgradeRequired);
    const projectId = await projectOf(em, schedule, workspace);
    if (schedule.brandKitId && !(await em.findOne(BrandKit, { id: schedule.brandKitId, workspaceId: schedule.workspaceId }))) {
      throw ApplicationFailure.nonRetryable(`The schedule's brand kit ${schedule.brandKitId} was deleted; set another one or none.`, failureTypes.brandKitUnavailable);
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
  });
}

async function projectOf(em: EntityManager, schedule: Schedule, workspace: Workspace): Promise<string> {
  if (schedule.projectId) {
    const project = await em.findOne(Project, { id: schedule.projectId, workspaceId: schedule.workspaceId });
    if (!project) throw ApplicationFailure.nonRetryable(`The schedule's project ${schedule.projectId} was deleted; the run made no post.`, failureTypes.projectUnavailable);
    if (project.status === 'archived') {
      throw ApplicationFailure.nonRetryable(`The schedule's project "${project.name}" is archived; re-activate it for runs to make posts.`, failureTypes.projectUnavailable);
    }
    return project.id;
  }
  const existing = await em.findOne(Project, { workspaceId: schedule.workspaceId, name: scheduledPostsProjectName, status: 'active' });
  if (existing) return existing.id;
  // A project like any other: it counts against the plan's quota (the workspace is locked); past it the run fails
  // for good with the quota's words (finalUnlessDependencyDown makes the AppError final).
  requireQuota(workspace.plan, 'activeProjects', await em.count(Project, { workspaceId: schedule.workspaceId, status: 'active' }));
  return em.create(Project, { workspaceId: schedule.workspaceId, name: scheduledPostsProjectName, description: 'Posts made by schedules without a project.', status: 'active' }).id;
}
