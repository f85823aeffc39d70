import type { UsageActivity } from '../../adapters/database/entities/usage-activity.ts';
import { usageTypeLabels } from '../../domain/usage/usage-types.ts';
import type { Schemas } from '../schemas.ts';

/** One page of the workspace's usage, each item with its label in words. */
export function presentUsageActivity(items: UsageActivity[]): Schemas['UsageActivity'] {
  return {
    activity: items.map((item) => ({
      id: item.id,
      type: item.type,
      typeLabel: usageTypeLabels[item.type],
      description: item.description,
      createdAt: item.createdAt.toISOString(),
    })),
  };
}
