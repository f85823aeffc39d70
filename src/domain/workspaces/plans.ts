import { AppError, type QuotaName } from '../../errors/app-error.ts';
import type { Plan } from '../../data/entities/workspace.ts';

export type Feature = 'apiKeys' | 'schedules' | 'webhooks';

// What each plan allows. Null means unlimited. This table is the only place plan rules live.
export const planRules: Record<Plan, { limits: Record<QuotaName, number | null>; features: Record<Feature, boolean> }> = {
  starter: {
    limits: { activeProjects: 3, brandKits: 1 },
    features: { apiKeys: false, schedules: false, webhooks: false },
  },
  growth: {
    limits: { activeProjects: null, brandKits: null },
    features: { apiKeys: true, schedules: true, webhooks: true },
  },
};

const featureNames: Record<Feature, string> = { apiKeys: 'API keys', schedules: 'Schedules', webhooks: 'Webhooks' };
const quotaNames: Record<QuotaName, string> = { activeProjects: 'active projects', brandKits: 'brand kits' };

export function hasFeature(plan: Plan, feature: Feature): boolean {
  return planRules[plan].features[feature];
}

export function requireFeature(plan: Plan, feature: Feature): void {
  if (hasFeature(plan, feature)) return;
  throw new AppError(
    'plan-upgrade-required',
    `${featureNames[feature]} are not available on the ${plan} plan; upgrade to Growth to use them.`,
    { requiredPlan: 'growth' },
  );
}

/**
 * Why a schedule run or a webhook delivery set up on Growth did nothing after a downgrade: recorded where the customer
 * looks (the schedule's `lastRunError`, the webhook's delivery log). Runs check the plan when they run, so an upgrade
 * resumes them.
 */
export function stoppedByPlan(plan: Plan, feature: Feature): string {
  return `${featureNames[feature]} need the Growth plan and this workspace is on the ${plan} plan, so this did not run; it runs again after an upgrade to Growth.`;
}

/** Throws when adding one more would exceed the plan's limit; `current` is the count before adding. */
export function requireQuota(plan: Plan, quota: QuotaName, current: number): void {
  const limit = planRules[plan].limits[quota];
  if (limit === null || current < limit) return;
  throw new AppError(
    'plan-limit-reached',
    `The ${plan} plan allows ${limit} ${quotaNames[quota]} and this workspace has ${current}; upgrade to Growth for more.`,
    { quota: { name: quota, plan, limit } },
  );
}
