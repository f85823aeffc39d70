// Task queues next to the one in configuration (TEMPORAL_TASK_QUEUE). Encoding a video takes whole cores for seconds
// to minutes; on a queue of its own, served with bounded concurrency (VIDEO_CONCURRENCY), it never takes the slots
// that generations, publications and deliveries need. Deliveries to slow webhook receivers wait on sockets for
// seconds; on a queue of their own (WEBHOOK_SLOW_CONCURRENCY at once) they never take the activity slots that
// renders, social publications and the retries of other receivers need. Workflows derive both from their own task
// queue.
export const taskQueues = {
  video: (taskQueue: string) => `${taskQueue}-video`,
  slowWebhooks: (taskQueue: string) => `${taskQueue}-webhooks-slow`,
} as const;
