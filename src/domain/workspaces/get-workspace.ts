import { ApiKey } from '../../adapters/database/entities/api-key.ts';
import { BrandKit } from '../../adapters/database/entities/brand-kit.ts';
import { Project } from '../../adapters/database/entities/project.ts';
import { Schedule } from '../../adapters/database/entities/schedule.ts';
import { SocialConnection } from '../../adapters/database/entities/social-connection.ts';
import { VideoJob } from '../../adapters/database/entities/video-job.ts';
import { Webhook } from '../../adapters/database/entities/webhook.ts';
import { Workspace } from '../../adapters/database/entities/workspace.ts';
import type { QuotaName } from '../../common/errors/app-error.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { countGenerations, monthStartOf } from '../usage/count-generations.ts';
import { planRules, type Feature } from './plans.ts';

export type WorkspaceOverview = {
  workspace: Workspace;
  limits: Record<QuotaName | 'scheduleIntervalMinutes', number | null>;
  features: Record<Feature, boolean>;
  usage: Record<QuotaName, number>;
};

/** The caller's workspace with its plan, limits and how much of them is used. */
export async function getWorkspace(deps: Deps, caller: Caller): Promise<WorkspaceOverview> {
  const em = deps.orm.em.fork();
  const workspaceId = caller.workspaceId;
  const workspace = await em.findOneOrFail(Workspace, workspaceId);
  const [activeProjects, brandKits, schedules, webhooks, apiKeys, socialConnections, concurrentVideos, monthlyGenerations] = await Promise.all([
    em.count(Project, { workspaceId, status: 'active' }),
    em.count(BrandKit, { workspaceId }),
    em.count(Schedule, { workspaceId }),
    em.count(Webhook, { workspaceId }),
    em.count(ApiKey, { workspaceId }),
    em.count(SocialConnection, { workspaceId }),
    em.count(VideoJob, { workspaceId, status: { $in: ['queued', 'running'] } }),
    countGenerations(em, workspaceId, monthStartOf(new Date())),
  ]);
  const rules = planRules[workspace.plan];
  return {
    workspace,
    limits: { ...rules.limits, scheduleIntervalMinutes: rules.minScheduleIntervalMinutes },
    features: rules.features,
    usage: { activeProjects, brandKits, schedules, webhooks, apiKeys, socialConnections, concurrentVideos, monthlyGenerations },
  };
}
