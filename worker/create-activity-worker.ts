import { Worker, type WorkerOptions as SdkWorkerOptions } from '@temporalio/worker';
import { activityInterceptors } from './activity-interceptors.ts';
import type { WorkerOptions } from './create-worker.ts';

/**
 * A worker that runs only `activities`, on a task queue of their own and at most `concurrency` at once: work that is
 * slow by nature (encodes, slow customer endpoints) queues up there instead of taking the main worker's slots.
 */
export function createActivityWorker(
  { connection, config }: Pick<WorkerOptions, 'connection' | 'config'>,
  queue: { taskQueue: string; activities: SdkWorkerOptions['activities']; concurrency: number } & Pick<SdkWorkerOptions, 'maxHeartbeatThrottleInterval'>,
): Promise<Worker> {
  const { taskQueue, activities, concurrency, ...options } = queue;
  return Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue,
    activities,
    maxConcurrentActivityTaskExecutions: concurrency,
    shutdownGraceTime: `${config.temporal.shutdownGraceSeconds} seconds`,
    // The same spans and log context as the main worker's activities.
    interceptors: { activity: activityInterceptors },
    ...options,
  });
}
