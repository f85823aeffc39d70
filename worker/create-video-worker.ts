import { Worker } from '@temporalio/worker';
import { createActivities } from '../activities/index.ts';
import { taskQueues } from '../src/adapters/temporal/task-queues.ts';
import { activityInterceptors } from './activity-interceptors.ts';
import type { WorkerOptions } from './create-worker.ts';

/**
 * The worker of the video task queue: activities only (ffmpeg), at most `VIDEO_CONCURRENCY` at once, so encodes
 * queue up here instead of taking the slots of the main worker's generations and deliveries.
 */
export function createVideoWorker({ connection, config, deps }: Omit<WorkerOptions, 'workflowBundlePath'>): Promise<Worker> {
  const { renderPostVideo } = createActivities(deps);
  return Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: taskQueues.video(config.temporal.taskQueue),
    activities: { renderPostVideo },
    maxConcurrentActivityTaskExecutions: config.video.concurrency,
    // Progress that users watch goes out as heartbeats; see createWorker.
    maxHeartbeatThrottleInterval: '1 second',
    shutdownGraceTime: `${config.temporal.shutdownGraceSeconds} seconds`,
    // The same spans and log context as the main worker's activities.
    interceptors: { activity: activityInterceptors },
  });
}
