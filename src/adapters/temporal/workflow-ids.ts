// The one place that names workflow runs. IDs are stable and meaningful, so a second start of the same work is
// refused by Temporal (no double side effects) and an operator can find a run in the Web UI by what it is about.
// The task queue comes from configuration (TEMPORAL_TASK_QUEUE), so that several deployments or test runs can
// share one Temporal namespace.
export const workflowIds = {
  storageCleanup: (batchId: string) => `storage-cleanup-${batchId}`,
  storageSweep: () => 'storage-sweep',
  /** The runs of the `event-sweep` Temporal Schedule, which hands over events nobody handed to their delivery. */
  eventSweep: () => 'event-sweep',
  /** The runs of the `schedules-reconcile` Temporal Schedule (Temporal appends the scheduled time). */
  schedulesReconcile: () => 'schedules-reconcile',
  /** One generation per post at a time: a second start while one runs is refused (409). */
  postGenerate: (postId: string) => `post-generate-${postId}`,
  postRender: (postId: string) => `post-render-${postId}`,
  /** The post's publication: now, at a scheduled time, and/or to social connections; moved and cancelled by updates. */
  postPublication: (postId: string) => `post-publish-${postId}`,
  /** Hands one event to every subscribed webhook; started for the workflow that recorded the event, which does not wait for it. */
  eventDelivery: (eventId: string) => `event-${eventId}`,
  /** One customer-requested attempt of a logged delivery: the attempt number makes the same attempt impossible to send twice. */
  webhookRedelivery: (deliveryId: string, attempt: number) => `webhook-redelivery-${deliveryId}-${attempt}`,
  /** What a plan change does in Temporal (schedules paused or resumed, deliveries stopped); a newer change replaces a run still going. */
  workspacePlan: (workspaceId: string) => `workspace-plan-${workspaceId}`,
  /** Keeps an OAuth connection's tokens alive for as long as the connection exists. */
  socialConnection: (connectionId: string) => `social-connection-${connectionId}`,
  /** A video job's workflow ID is the job id itself, so a client's job id is all it takes to find the run. */
  videoJob: (jobId: string) => jobId,
  /** Prefix of a schedule's runs; Temporal appends the scheduled time. */
  scheduledGeneration: (scheduleId: string) => `scheduled-generation-${scheduleId}`,
  /** The firing a run of the schedule belongs to, from the time its Temporal Schedule appended (RFC 3339, UTC, to the second). */
  scheduledGenerationFiringOf: (scheduleId: string, workflowId: string): Date | undefined => {
    const prefix = `${workflowIds.scheduledGeneration(scheduleId)}-`;
    const time = workflowId.startsWith(prefix) ? workflowId.slice(prefix.length) : '';
    return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(time) ? new Date(time) : undefined;
  },
} as const;

/** Temporal Schedules owned by the service. */
export const scheduleIds = {
  storageSweep: 'storage-sweep',
  eventSweep: 'event-sweep',
  schedulesReconcile: 'schedules-reconcile',
  /** A customer's recurring generation (its runs are `scheduled-generation-<scheduleId>-<time>`). */
  generation: (scheduleId: string) => `schedule-${scheduleId}`,
  /** Inverse of `generation`, for the reconcile step. */
  generationScheduleIdOf: (temporalScheduleId: string) =>
    temporalScheduleId.startsWith('schedule-') ? temporalScheduleId.slice('schedule-'.length) : undefined,
} as const;
