import type { Worker } from '@temporalio/worker';
import { createActivities } from '../activities/index.ts';
import { taskQueues } from '../src/adapters/temporal/task-queues.ts';
import { createActivityWorker } from './create-activity-worker.ts';
import type { WorkerOptions } from './create-worker.ts';

/**
 * The worker of the slow-webhooks task queue: the deliveries an event's first round left to an activity (receivers
 * that answer slowly, requests still under way when the round handed over), at most `WEBHOOK_SLOW_CONCURRENCY` at once.
 */
export function createSlowWebhooksWorker({ connection, config, deps }: Omit<WorkerOptions, 'workflowBundlePath'>): Promise<Worker> {
  const { deliverToWebhooks } = createActivities(deps);
  return createActivityWorker(
    { connection, config },
    { taskQueue: taskQueues.slowWebhooks(config.temporal.taskQueue), activities: { deliverToWebhooks }, concurrency: config.webhooks.slowConcurrency },
  );
}
