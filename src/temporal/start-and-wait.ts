import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowStartOptions } from '@temporalio/client';
import type { Workflow, WorkflowResultType } from '@temporalio/common';
import { AppError } from '../errors/app-error.ts';

export type WaitOutcome<T> = { state: 'completed'; result: T } | { state: 'running' };

/**
 * Starts a workflow and waits for its result up to `waitMs`: an API action answers with the outcome when it comes
 * quickly, and with 202 (still running) when it does not; the workflow goes on either way. A run with the same ID
 * still in progress answers 409. A failed workflow rejects with Temporal's WorkflowFailedError.
 */
export async function startAndWait<W extends Workflow>(
  client: Client,
  workflowType: string,
  options: WorkflowStartOptions<W>,
  waitMs: number,
  describe: string,
): Promise<WaitOutcome<WorkflowResultType<W>>> {
  let handle;
  try {
    handle = await client.workflow.start<W>(workflowType, options);
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) {
      throw new AppError('conflict', `${describe} is already running (workflow ${options.workflowId}); wait for it to finish.`);
    }
    throw error;
  }
  const signal = AbortSignal.timeout(waitMs);
  try {
    return { state: 'completed', result: await client.connection.withAbortSignal(signal, () => handle.result()) };
  } catch (error) {
    if (signal.aborted) return { state: 'running' };
    throw error;
  }
}
