import { AppError, type QuotaName } from '../../common/errors/app-error.ts';
import type { Plan } from '../../adapters/database/entities/workspace.ts';

export type Feature = 'apiKeys' | 'schedules' | 'webhooks';

type PlanRules = {
  /** How many of each a workspace may have (videos: encoding at once). Null means unlimited. */
  limits: Record<QuotaName, number | null>;
  /** The shortest time between two firings of one schedule, in minutes; null where the plan has no schedules. */
  minScheduleIntervalMinutes: number | null;
  features: Record<Feature, boolean>;
};

// What each plan allows (the reasons for each number are in docs/api.md, "Plans and budgets"). Growth's 50 webhooks:
// an event's first attempts to every webhook run in one activity round, with a budget of a few request timeouts
// (workflows/contracts/activity-options.ts); this many slow receivers, 32 at a time, stay well within it. This table is the only place plan rules live (openapi.yaml's "Plans and quotas" says the
// same to clients). Starter's zeros are the features it does not have: the feature check answers first.
export const planRules: Record<Plan, PlanRules> = {
  starter: {
    limits: { activeProjects: 3, brandKits: 1, schedules: 0, webhooks: 0, apiKeys: 0, socialConnections: 3, concurrentVideos: 1, monthlyGenerations: 100 },
    minScheduleIntervalMinutes: null,
    features: { apiKeys: false, schedules: false, webhooks: false },
  },
  growth: {
    limits: {
      activeProjects: null,
      brandKits: null,
      schedules: 50,
      webhooks: 50,
      apiKeys: 25,
      socialConnections: 25,
      concurrentVideos: 2,
      monthlyGenerations: 3000,
    },
    minScheduleIntervalMinutes: 15,
    features: { apiKeys: true, schedules: true, webhooks: true },
  },
};

const featureNames: Record<Feature, string> = { apiKeys: 'API keys', schedules: 'Schedules', webhooks: 'Webhooks' };
const quotaNames: Record<QuotaName, string> = {
  activeProjects: 'active projects',
  brandKits: 'brand kits',
  schedules: 'schedules',
  webhooks: 'webhooks',
  apiKeys: 'API keys',
  socialConnections: 'social connections',
  concurrentVideos: 'videos encoding at once',
  monthlyGenerations: 'image generations a month',
};
// A client that waits this long finds a slot again most of the time: a video takes seconds to encode.
const videoSlotRetryAfterSeconds = 15;

export function hasFeature(plan: Plan, feature: Feature): boolean {
  return planRules[plan].features[feature];
}

export function requireFeature(plan: Plan, feature: Feature): void {
  if (hasFeature(plan, feature)) return;
  throw new AppError('plan-upgrade-required', `${featureNames[feature]} are not available on the ${plan} plan; upgrade to Growth to use them.`, {
    requiredPlan: 'growth',
  });
}

/**
 * Why a schedule run or a webhook delivery set up on Growth did nothing after a downgrade: recorded where the customer
 * looks (the schedule's `lastRunError`, the webhook's delivery log). Runs check the plan when they run, so an upgrade
 * resumes them.
 */
export function stoppedByPlan(plan: Plan, feature: Feature): string {
  return `${featureNames[feature]} need the Growth plan and this workspace is on the ${plan} plan, so this did not run; it runs again after an upgrade to Growth.`;
}

/**
 * Throws when adding one more would exceed the plan's limit; `current` is the count before adding, read under the
 * workspace's lock (lockWorkspace) so that concurrent requests cannot both take the last place.
 */
export function requireQuota(plan: Plan, quota: Exclude<QuotaName, 'concurrentVideos' | 'monthlyGenerations'>, current: number): void {
  const limit = planRules[plan].limits[quota];
  if (limit === null || current < limit) return;
  const remedy = plan === 'starter' ? 'upgrade to Growth for more' : 'delete one first';
  throw new AppError('plan-limit-reached', `The ${plan} plan allows ${limit} ${quotaNames[quota]} and this workspace has ${current}; ${remedy}.`, {
    quota: { name: quota, plan, limit },
  });
}

/**
 * Refuses one more video while the workspace already has as many encoding as its plan allows: 429 with Retry-After,
 * since waiting is what frees a slot (as with a rate limit), not deleting anything. `encoding` is counted under the
 * workspace's lock.
 */
export function requireVideoSlot(plan: Plan, encoding: number): void {
  const limit = planRules[plan].limits.concurrentVideos;
  if (limit === null || encoding < limit) return;
  throw new AppError(
    'rate-limited',
    `The ${plan} plan allows ${limit} ${quotaNames.concurrentVideos} and this workspace has ${encoding} being made; try again when one has finished.`,
    { retryAfterSeconds: videoSlotRetryAfterSeconds },
  );
}

/**
 * Refuses one more image generation once the workspace has had its plan's monthly budget (each costs the operator a
 * provider call): 403 `plan-limit-reached` with how many were made this month and when the month ends (UTC), since
 * deleting nothing frees a place and the wait is too long for a Retry-After. `generated` counts the generations
 * recorded since `monthStart`; ones still running are not yet counted, so concurrent requests can pass the budget
 * by as many as run at once.
 */
export function requireGenerationBudget(plan: Plan, generated: number, monthStart: Date): void {
  const limit = planRules[plan].limits.monthlyGenerations;
  if (limit === null || generated < limit) return;
  const resetsAt = new Date(Date.UTC(monthStart.getUTCFullYear(), monthStart.getUTCMonth() + 1, 1)).toISOString();
  const remedy = plan === 'starter' ? 'upgrade to Growth for more, or wait' : 'wait';
  throw new AppError(
    'plan-limit-reached',
    `The ${plan} plan allows ${limit} ${quotaNames.monthlyGenerations} and this workspace has made ${generated} this month; ${remedy} until ${resetsAt}.`,
    { quota: { name: 'monthlyGenerations', plan, limit, used: generated, resetsAt } },
  );
}

/** Refuses a schedule that fires more often than the plan allows, naming the field and the plan's minimum. */
export function requireScheduleInterval(plan: Plan, cronExpression: string, intervalMinutes: number): void {
  const limit = planRules[plan].minScheduleIntervalMinutes;
  if (limit === null || intervalMinutes >= limit) return;
  throw new AppError(
    'plan-limit-reached',
    `cronExpression "${cronExpression}" fires ${intervalMinutes} minute(s) apart; the ${plan} plan allows a schedule to fire at most every ${limit} minutes.`,
    { quota: { name: 'scheduleIntervalMinutes', plan, limit } },
  );
}
