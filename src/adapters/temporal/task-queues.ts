// Task queues next to the one in configuration (TEMPORAL_TASK_QUEUE). Encoding a video takes whole cores for seconds
// to minutes; on a queue of its own, served with bounded concurrency (VIDEO_CONCURRENCY), it never takes the slots
// that generations, publications and deliveries need. Workflows derive it from their own task queue.
export const taskQueues = {
  video: (taskQueue: string) => `${taskQueue}-video`,
} as const;
