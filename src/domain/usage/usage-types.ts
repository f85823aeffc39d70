import type { UsageType } from '../../adapters/database/entities/usage-activity.ts';

/** The human label of each usage type (`typeLabel` in the API). */
export const usageTypeLabels: Record<UsageType, string> = {
  PostGeneration: 'Post generation',
  PostRender: 'Post render',
  VideoGeneration: 'Video generation',
  PostPublish: 'Post publish',
  SocialPublish: 'Social publish',
  ScheduledGeneration: 'Scheduled generation',
};
