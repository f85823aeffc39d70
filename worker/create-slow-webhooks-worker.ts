import { Worker } from '@temporalio/worker';
import { createActivities } from '../activities/index.ts';
import { taskQueues } from '../src/adapters/temporal/task-queues.ts';
import { activityInterceptors } from './activity-interceptors.ts';
import type { WorkerOptions } from './create-worker.ts';

/**
 * The worker of the slow-webhooks task queue: the deliveries an event's first round left to an activity (receivers
 * that answer slowly, requests still under way when the round handed over), at most `WEBHOOK_SLOW_CONCURRENCY` at
 * once, so slow customer endpoints queue up here instead of taking the main worker's activity slots.
 */
export function createSlowWebhooksWorker({ connection, config, deps }: Omit<WorkerOptions, 'workflowBundlePath'>): Promise<Worker> {
  const { deliverToWebhooks } = createActivities(deps);
  return Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: taskQueues.slowWebhooks(config.temporal.taskQueue),
    activities: { deliverToWebhooks },
    maxConcurrentActivityTaskExecutions: config.webhooks.slowConcurrency,
    shutdownGraceTime: `${config.temporal.shutdownGraceSeconds} seconds`,
    // The same spans and log context as the main worker's activities.
    interceptors: { activity: activityInterceptors },
  });
}
