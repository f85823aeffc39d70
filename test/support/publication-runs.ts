import { ApplicationFailure, type WorkflowHandle, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Activities } from '../../activities/activity-signatures.ts';
import { failureTypes } from '../../src/adapters/temporal/failure-types.ts';
import { planUpdate } from '../../workflows/contracts/post-publication.ts';
import { postPublication } from '../../workflows/post-publication.ts';
import type { WorkflowTestBed } from './workflow-test-bed.ts';

/** Starts a publication of a made-up post on `taskQueue`, for a worker with stub activities (which need no row). */
export function startMadeUpPublication(bed: WorkflowTestBed, taskQueue: string): Promise<WorkflowHandleWithFirstExecutionRunId<typeof postPublication>> {
  return bed.client.workflow.start(postPublication, {
    workflowId: `publication-${randomUUID()}`,
    taskQueue,
    args: [{ postId: randomUUID(), publicationId: randomUUID() }],
  });
}

/** A publication whose first plan fails (its connection was deleted): the plan is refused and the run ends. Returns the ended run. */
export async function runPublicationWhoseFirstPlanFails(bed: WorkflowTestBed): Promise<WorkflowHandle<typeof postPublication>> {
  const stubs: Partial<Activities> = {
    planPublication: () => Promise.reject(ApplicationFailure.nonRetryable('Connection c was deleted.', failureTypes.connectionNotFound)),
  };
  return bed.runWith(stubs, async (taskQueue) => {
    const handle = await startMadeUpPublication(bed, taskQueue);
    await expect(handle.executeUpdate(planUpdate, { args: [{ publishAt: null, connectionIds: ['c'] }] })).rejects.toThrow();
    await handle.result();
    return handle;
  });
}
