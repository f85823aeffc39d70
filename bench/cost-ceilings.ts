import { costCounts, type Cost } from './history-cost.ts';

// The most each operation may cost in Temporal, count by count (bench/history-cost.ts), held by the bench's `cost`
// section and by test/workflows/temporal-cost.test.ts. These counts do not depend on the machine or its load: each
// ceiling is the count measured, so any change to what an operation costs fails until its ceiling is changed here,
// on purpose, with the reason in the commit. Where a ceiling allows more than measured, the comment says why.
//
// What the counts do depend on: everything succeeding at its first attempt (a retried activity or a failed
// workflow task counts again), and every local activity ending within the workflow task's timeout (10 s; past
// 80 % of it the worker heartbeats the task, one more workflow task each time). Every operation here does both on a
// healthy stack, and one that stopped doing so is worth a failure.

/** The connections of 'publish to 3 social targets'. */
export const socialTargets = 3;

export const costCeilings = {
  /** POST /posts/{id}/generate, the image drawn by the local renderer in a local activity. */
  'generate, local renderer': { workflowExecutions: 1, workflowTasks: 1, activityTasks: 0, localActivities: 1, historyEvents: 6, billableActions: 2 },
  /** The same with an image provider over the network (Stability AI's API), drawn by an activity. */
  'generate, image provider': { workflowExecutions: 1, workflowTasks: 2, activityTasks: 1, localActivities: 0, historyEvents: 11, billableActions: 2 },
  /** POST /posts/{id}/render of a generated post. */
  render: { workflowExecutions: 1, workflowTasks: 3, activityTasks: 2, localActivities: 0, historyEvents: 17, billableActions: 3 },
  /** POST /posts/{id}/publish, no webhook subscribed. */
  'publish now': { workflowExecutions: 1, workflowTasks: 1, activityTasks: 0, localActivities: 1, historyEvents: 8, billableActions: 3 },
  /**
   * POST /posts/{id}/publish-social to that many connections (Bluesky accounts on the reference PDS). The three
   * activities' completions reach the workflow in one workflow task or in several, as they happen to arrive: 3 or 4
   * tasks, 24 to 27 events. The ceiling is the larger.
   */
  'publish to 3 social targets': { workflowExecutions: 1, workflowTasks: 4, activityTasks: 3, localActivities: 2, historyEvents: 27, billableActions: 7 },
  /**
   * POST /posts/{id}/publish-social of a post with a finished video to one Mastodon connection, whose server
   * processes the video after the upload (202, then 206 once): three runs of the publish activity (upload; check;
   * check and post) with a durable timer between each.
   */
  'publish a video to 1 social target': {
    workflowExecutions: 1,
    workflowTasks: 6,
    activityTasks: 3,
    localActivities: 2,
    historyEvents: 37,
    billableActions: 9,
  },
  /**
   * Held by test/workflows/temporal-cost.test.ts only (the bench does not publish to YouTube or Instagram). The same
   * to one YouTube connection: the resumable upload (its parts in one run of the publish activity, however
   * many), YouTube processing the video once, a durable timer, then the run that finds it processed. A part's
   * progress is a heartbeat, not a history event, so the cost does not grow with the video's size.
   */
  'publish a video to YouTube': { workflowExecutions: 1, workflowTasks: 4, activityTasks: 2, localActivities: 2, historyEvents: 26, billableActions: 7 },
  /**
   * The same as a Reel to one Instagram connection: the container made (Instagram fetches the video itself), found in
   * progress once, a durable timer, then the run that publishes it.
   */
  'publish a Reel to Instagram': { workflowExecutions: 1, workflowTasks: 4, activityTasks: 2, localActivities: 2, historyEvents: 26, billableActions: 7 },
  /** POST /posts/{id}/schedule a few seconds ahead, until it has published. */
  'scheduled publication': { workflowExecutions: 1, workflowTasks: 2, activityTasks: 0, localActivities: 2, historyEvents: 14, billableActions: 5 },
  /**
   * One firing of a customer's schedule (triggered): its run and the generation that run starts as a child. The
   * firing itself happens in Temporal's own scheduler workflow, which is not ours to count; it is in the actions
   * (Temporal Cloud bills a schedule's start as two).
   */
  'schedule firing': { workflowExecutions: 2, workflowTasks: 6, activityTasks: 2, localActivities: 1, historyEvents: 32, billableActions: 8 },
  /** The deliveries of one post.published event to one webhook (the publication itself not included). */
  'event to 1 webhook': { workflowExecutions: 1, workflowTasks: 1, activityTasks: 0, localActivities: 1, historyEvents: 6, billableActions: 2 },
  /** The same to twenty webhooks. */
  'event to 20 webhooks': { workflowExecutions: 1, workflowTasks: 1, activityTasks: 0, localActivities: 1, historyEvents: 6, billableActions: 2 },
  /** A video job (POST /dashboard/api/posts/{id}/video) until done. */
  'video job': { workflowExecutions: 1, workflowTasks: 3, activityTasks: 2, localActivities: 0, historyEvents: 17, billableActions: 3 },
} satisfies Record<string, Cost>;

export type CostedOperation = keyof typeof costCeilings;

/** Every count of `cost` above the operation's ceiling, each as a sentence naming the operation and the count. */
export function overCeilings(operation: CostedOperation, cost: Cost): string[] {
  const ceiling: Cost = costCeilings[operation];
  return costCounts.filter((count) => cost[count] > ceiling[count]).map((count) => `${operation}: ${count} ${cost[count]} > ceiling ${ceiling[count]}`);
}
