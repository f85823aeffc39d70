import proto from '@temporalio/proto';

// What a set of workflow histories cost in Temporal, read from their events alone: the one count behind the bench's
// cost lines and ceilings and the test that holds them (bench/cost-ceilings.ts).
//
// Billable actions follow Temporal Cloud's rules, https://docs.temporal.io/cloud/actions (Workflow, Child
// Workflows, Activities, Schedules). Only what a history shows is counted; a few billable things never reach one and
// are left out: queries, activity heartbeats, rejected updates, history export. Where a rule needs more than the
// history has, the count below says which way it leans.

type History = proto.temporal.api.history.v1.IHistory;
type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

export type Cost = {
  workflowExecutions: number;
  /**
   * WorkflowTaskScheduled events rather than WorkflowTaskCompleted ones: every workflow task the server put on a
   * queue for a worker, whether it then completed, failed or timed out. A failed or timed-out task costs the server
   * and a worker a round trip like a completed one, and a ceiling should see it; on the happy path both counts are
   * the same. (After a first failure the server retries a task without writing events, and a speculative task for an
   * update it rejects leaves none, so those count once or not at all.)
   */
  workflowTasks: number;
  /** ActivityTaskScheduled events; retries of the same activity are attempts of one task (see billableActions). */
  activityTasks: number;
  /** Local activities, one per LocalActivity marker (they run inside a workflow task, not on an activity queue). */
  localActivities: number;
  historyEvents: number;
  billableActions: number;
};

export const costCounts = [
  'workflowExecutions',
  'workflowTasks',
  'activityTasks',
  'localActivities',
  'historyEvents',
  'billableActions',
] as const satisfies ReadonlyArray<keyof Cost>;

export function costOf(histories: History[]): Cost {
  const cost: Cost = { workflowExecutions: 0, workflowTasks: 0, activityTasks: 0, localActivities: 0, historyEvents: 0, billableActions: 0 };
  for (const history of histories) {
    const events = history.events ?? [];
    cost.workflowExecutions += 1;
    cost.historyEvents += events.length;
    cost.billableActions += billableActions(events);
    for (const event of events) {
      if (event.workflowTaskScheduledEventAttributes) cost.workflowTasks += 1;
      if (event.activityTaskScheduledEventAttributes) cost.activityTasks += 1;
      if (isLocalActivity(event)) cost.localActivities += 1;
    }
  }
  return cost;
}

/** Temporal Cloud's billable actions of one history (see the page cited at the top). */
function billableActions(events: HistoryEvent[]): number {
  let actions = 0;
  // Local activities bill one action per workflow task that recorded any, not one per activity.
  const tasksWithLocalActivities = new Set<string>();
  for (const event of events) {
    const started = event.workflowExecutionStartedEventAttributes;
    if (started) {
      // A start by a client, by Continue-As-New or by a schedule is one action; a schedule's firing adds two of its
      // own ("Schedule Start"), and a child's start was billed in its parent (below), so it adds none here. A
      // Signal-With-Start bills one action in all, where this counts its start and its signal: one too many, for a
      // call this service does not make.
      if (started.parentWorkflowExecution) continue;
      actions += 1;
      if (started.searchAttributes?.indexedFields?.TemporalScheduledById) actions += 2;
    }
    // The parent's intent to start a child: one action for the start, one for the child's execution.
    if (event.startChildWorkflowExecutionInitiatedEventAttributes) actions += 2;
    // Each attempt of an activity is an action. Its started event is written once, with the last attempt's number:
    // the scheduling counts the first attempt (also of an activity cancelled before it started), that number the
    // retries.
    if (event.activityTaskScheduledEventAttributes) actions += 1;
    const activity = event.activityTaskStartedEventAttributes;
    if (activity) actions += Math.max(0, (activity.attempt ?? 1) - 1);
    if (isLocalActivity(event)) tasksWithLocalActivities.add(String(event.markerRecordedEventAttributes?.workflowTaskCompletedEventId ?? ''));
    else if (event.markerRecordedEventAttributes?.markerName === 'SideEffect' || event.markerRecordedEventAttributes?.markerName === 'MutableSideEffect')
      actions += 1;
    if (event.timerStartedEventAttributes) actions += 1;
    // Received, whether a client or a workflow sent it (the sender's SignalExternal… event is not counted again).
    if (event.workflowExecutionSignaledEventAttributes) actions += 1;
    // Accepted updates (Update-With-Start's included, on top of its start); rejected ones rarely reach a history.
    if (event.workflowExecutionUpdateAcceptedEventAttributes || event.workflowExecutionUpdateRejectedEventAttributes) actions += 1;
    const upsert = event.upsertWorkflowSearchAttributesEventAttributes;
    if (upsert && Object.keys(upsert.searchAttributes?.indexedFields ?? {}).some((name) => name !== 'TemporalChangeVersion')) actions += 1;
    if (event.workflowExecutionOptionsUpdatedEventAttributes) actions += 1;
    if (event.workflowTaskFailedEventAttributes?.cause === resetCause) actions += 1;
    if (event.nexusOperationScheduledEventAttributes || event.nexusOperationCancelRequestedEventAttributes) actions += 1;
  }
  return actions + tasksWithLocalActivities.size;
}

const resetCause = proto.temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW;

function isLocalActivity(event: HistoryEvent): boolean {
  return event.markerRecordedEventAttributes?.markerName === 'core_local_activity';
}
