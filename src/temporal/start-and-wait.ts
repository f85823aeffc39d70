import { ServiceError, WorkflowExecutionAlreadyStartedError, type Client, type WorkflowStartOptions } from '@temporalio/client';
import type { Workflow, WorkflowResultType } from '@temporalio/common';
import { AppError } from '../errors/app-error.ts';
import { inTemporal } from './in-temporal.ts';

export type WaitOutcome<T> = { state: 'completed'; result: T } | { state: 'running' };

/**
 * Starts a workflow (through `inTemporal`: 503 when Temporal does not take it) and waits for its result up to
 * `waitMs`: an API action answers with the outcome when it comes quickly, and with 202 (still running) when it does
 * not; the workflow goes on either way. A run with the same ID still in progress answers 409. A failed workflow
 * rejects with Temporal's WorkflowFailedError.
 */
export async function startAndWait<W extends Workflow>(
  client: Client,
  workflowType: string,
  options: WorkflowStartOptions<W>,
  waitMs: number,
  /** The work in words, e.g. "a generation of post <id>". */
  describe: string,
): Promise<WaitOutcome<WorkflowResultType<W>>> {
  const handle = await inTemporal(client, `start ${describe}`, async () => {
    try {
      return await client.workflow.start<W>(workflowType, options);
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) {
        throw new AppError('conflict', `There is already ${describe} running (workflow ${options.workflowId}); wait for it to finish.`);
      }
      throw error;
    }
  });
  return waitForOutcome(client, waitMs, () => handle.result());
}

/**
 * Waits up to `waitMs` for the outcome of a workflow that Temporal has accepted. Not hearing it in time, or not
 * hearing from Temporal at all, is "still running": the run is durable and goes on without us. The workflow's own
 * failure (WorkflowFailedError) rejects.
 */
export async function waitForOutcome<T>(client: Client, waitMs: number, outcome: () => Promise<T>): Promise<WaitOutcome<T>> {
  const signal = AbortSignal.timeout(waitMs);
  try {
    return { state: 'completed', result: await client.connection.withAbortSignal(signal, outcome) };
  } catch (error) {
    if (signal.aborted || error instanceof ServiceError) return { state: 'running' };
    throw error;
  }
}
