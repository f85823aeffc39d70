import {
  ServiceError,
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
  type WorkflowIdConflictPolicy,
  type WorkflowStartOptions,
} from '@temporalio/client';
import type { UpdateDefinition, Workflow, WorkflowResultType } from '@temporalio/common';
import { AppError } from '../../common/errors/app-error.ts';
import { updateFailureAsProblem, workflowFailureAsProblem, type WorkName } from './failure-problems.ts';
import { isTemporalUnavailable } from './temporal-unavailable.ts';

// The one way a request talks to Temporal. Workflows are named by their function (a rename is a compile error),
// every call has one deadline and answers 503 when Temporal does not, and a workflow's or update's failure reads
// through one table (failure-problems.ts).

/** What a request hears of a workflow it waited for: its result, or that the run goes on without the caller. */
export type Outcome<T> = { state: 'completed'; result: T } | { state: 'running' };

// TEMPORAL_CALL_TIMEOUT_SECONDS, 10 s unless set: long enough for a busy server (a schedule's describe can stall for
// seconds while the server's own scheduler worker is backed up), short enough that a caller hears "try again" rather
// than waiting out the client's own retries, which go on far longer when the server is gone, and for ever when it
// hangs with connections open. Kept per client, as connect.ts made it from the process's settings.
const defaultCallTimeoutMs = 10_000;
const callTimeouts = new WeakMap<Client, number>();
const retryAfterSeconds = 5;

/** How long a request's calls through `client` may take in all (connect.ts sets it when it makes the client). */
export function setCallTimeout(client: Client, ms: number): void {
  callTimeouts.set(client, ms);
}

/**
 * The deadline of a request's calls to Temporal, taken once when the request first needs Temporal: a request that
 * calls several times (a change, then taking it back when the database refused it) passes the same deadline to each,
 * so a Temporal that hangs costs the client one deadline, not one per call.
 */
export function temporalDeadline(client: Client): number {
  return Date.now() + (callTimeouts.get(client) ?? defaultCallTimeoutMs);
}

/**
 * One deadline for everything `call` sends (its client-side retries included): `deadline`, shared with the request's
 * other calls, or one of its own. Temporal unreachable, hung or too
 * slow answers 503 with Retry-After ("Temporal did not confirm that it would <purpose>"). Unreachable before the
 * call, nothing was changed; cut off or slow during it, Temporal may have carried the change out. Either way the same request can be sent again:
 * workflow IDs and plans make each change happen once. An AppError thrown by `call` (the caller's reading of an
 * answer) passes through as it is, and so does an error Temporal would give again (a bad argument, a bug: a 500,
 * not a "try again"). Temporal's own words stay in the log (`cause`): they name internal addresses. The functions
 * below use it; call it directly only for what they do not cover (schedules, several reads that answer together).
 */
export async function inTemporal<T>(client: Client, purpose: string, call: () => Promise<T>, deadline = temporalDeadline(client)): Promise<T> {
  try {
    return await client.withDeadline(deadline, call);
  } catch (error) {
    if (error instanceof AppError || !isTemporalUnavailable(error)) throw error;
    // Not "did not": an answer lost on the way back looks the same as a request that never arrived.
    const unavailable = new AppError('service-unavailable', `Temporal did not confirm that it would ${purpose}; try again shortly.`, { retryAfterSeconds });
    unavailable.cause = error;
    throw unavailable;
  }
}

/**
 * Starts `workflow`. `work` names it for the caller ("a generation of post <id>"): 503 "Temporal did not confirm
 * that it would start <work>", and 409 when a run with the same ID is still going.
 */
export async function startWorkflow<W extends Workflow>(
  client: Client,
  workflow: W,
  options: WorkflowStartOptions<W>,
  work: string,
): Promise<WorkflowHandle<W>> {
  return inTemporal(client, `start ${work}`, async () => {
    const handle = await startUnlessTaken(client, workflow, options);
    if (handle) return handle;
    throw new AppError('conflict', `There is already ${work} running (workflow ${options.workflowId}); wait for it to finish.`);
  });
}

/**
 * Starts `workflow` unless its ID is taken: by a run still going, or, when the ID may not be reused
 * (`workflowIdReusePolicy: 'REJECT_DUPLICATE'`), by one that has ended. For work whose IDs are numbered (attempts),
 * whose caller goes on to the next number or answers in its own words.
 */
export async function tryStartWorkflow<W extends Workflow>(
  client: Client,
  workflow: W,
  options: WorkflowStartOptions<W>,
  work: string,
): Promise<{ state: 'started'; handle: WorkflowHandle<W> } | { state: 'running' | 'ended' }> {
  return inTemporal(client, `start ${work}`, async () => {
    const handle = await startUnlessTaken(client, workflow, options);
    if (handle) return { state: 'started', handle };
    return (await describe(client, options.workflowId))?.status.name === 'RUNNING' ? { state: 'running' } : { state: 'ended' };
  });
}

/** The new run's handle, or undefined when Temporal refused the start because the ID is taken. */
async function startUnlessTaken<W extends Workflow>(client: Client, workflow: W, options: WorkflowStartOptions<W>): Promise<WorkflowHandle<W> | undefined> {
  try {
    return await client.workflow.start(workflow, options);
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return undefined;
    throw error;
  }
}

/**
 * Starts `workflow` and waits up to `waitMs` for its result: an API action answers with the outcome when it comes
 * quickly, and 202 (still running) when it does not; the workflow goes on either way. 409 for a run still going,
 * 503 when Temporal does not take the start; the workflow's failure reads through the failure table.
 *
 * Given what names the request's Idempotency-Key (`requestKey`), the run carries it in its memo, and a retry of the
 * request whose answer was lost (its api died, or a 503 came although Temporal had taken the start) joins the run
 * the key started, going or ended, instead of starting another: the latest run of the ID is looked at first.
 */
export async function startAndWait<W extends Workflow>(
  client: Client,
  workflow: W,
  options: WorkflowStartOptions<W>,
  work: { description: string; name: WorkName; waitMs: number; requestKey?: string | undefined },
): Promise<Outcome<WorkflowResultType<W>>> {
  const handle =
    work.requestKey === undefined
      ? await startWorkflow(client, workflow, options, work.description)
      : await startOrJoin(client, workflow, options, work.description, work.requestKey);
  return waitForOutcome(client, handle, work);
}

async function startOrJoin<W extends Workflow>(
  client: Client,
  workflow: W,
  options: WorkflowStartOptions<W>,
  work: string,
  requestKey: string,
): Promise<WorkflowHandle<W>> {
  return inTemporal(client, `start ${work}`, async () => {
    const handle =
      (await runStartedBy<W>(client, options.workflowId, requestKey)) ??
      (await startUnlessTaken(client, workflow, { ...options, memo: { ...options.memo, requestKey } })) ??
      // Taken: by the same request sent twice at once, or by another request's run.
      (await runStartedBy<W>(client, options.workflowId, requestKey));
    if (handle) return handle;
    throw new AppError('conflict', `There is already ${work} running (workflow ${options.workflowId}); wait for it to finish.`);
  });
}

/** The latest run of `workflowId` when the request named by `requestKey` started it (its memo says so). */
async function runStartedBy<W extends Workflow>(client: Client, workflowId: string, requestKey: string): Promise<WorkflowHandle<W> | undefined> {
  const latest = await describe(client, workflowId);
  return latest?.memo?.requestKey === requestKey ? client.workflow.getHandle<W>(workflowId, latest.runId) : undefined;
}

/**
 * Waits up to `waitMs` for the outcome of a workflow that Temporal has accepted. Not hearing it in time, or not
 * hearing from Temporal at all, is "still running": the run is durable and goes on without us. The workflow's own
 * failure reads through the failure table (a 404 or 422), or rejects as it is (a 500).
 */
export async function waitForOutcome<W extends Workflow>(
  client: Client,
  handle: WorkflowHandle<W>,
  work: { name: WorkName; waitMs: number },
): Promise<Outcome<WorkflowResultType<W>>> {
  const signal = AbortSignal.timeout(work.waitMs);
  try {
    return { state: 'completed', result: await client.connection.withAbortSignal(signal, () => handle.result()) };
  } catch (error) {
    if (signal.aborted || error instanceof ServiceError) return { state: 'running' };
    throw workflowFailureAsProblem(error, work.name);
  }
}

/**
 * Sends `update` to the workflow, starting it first if no run is going (Update-with-Start), and answers the
 * update's result with the run's handle. `subject` names what the workflow is about for a refusal ("Post <id>: ...",
 * 409); `purpose` for Temporal not answering (503). An `updateId` makes a second send of the same update, while the
 * run that took the first is going, answer the first's result instead of running again (Temporal keeps the ids a run
 * has taken): the retry of a request whose answer was lost joins what it started.
 */
export async function updateWithStart<W extends Workflow, Ret, Args extends unknown[]>(
  client: Client,
  update: UpdateDefinition<Ret, Args>,
  args: Args,
  start: { workflow: W; options: WorkflowStartOptions<W> & { workflowIdConflictPolicy: WorkflowIdConflictPolicy } },
  words: { purpose: string; subject: string },
  updateId?: string,
): Promise<{ result: Ret; handle: WorkflowHandle<W> }> {
  const operation = new WithStartWorkflowOperation(start.workflow, start.options);
  const result = await inTemporal(client, words.purpose, async () => {
    try {
      return await client.workflow.executeUpdateWithStart(update, { args, startWorkflowOperation: operation, ...(updateId === undefined ? {} : { updateId }) });
    } catch (error) {
      throw updateFailureAsProblem(error, words.subject);
    }
  });
  return { result, handle: await operation.workflowHandle() };
}

/** Sends `update` (one without arguments) to the workflow's run if one is going; with none going, there is nothing to do. */
export async function updateIfRunning(
  client: Client,
  workflowId: string,
  update: UpdateDefinition<unknown, []>,
  words: { purpose: string; subject: string },
): Promise<void> {
  await inTemporal(client, words.purpose, async () => {
    try {
      if ((await describe(client, workflowId))?.status.name !== 'RUNNING') return;
      await client.workflow.getHandle(workflowId).executeUpdate(update);
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return;
      throw updateFailureAsProblem(error, words.subject);
    }
  });
}

/** The workflow's latest run as Temporal describes it, or undefined when Temporal keeps no run of that ID. */
export async function describeWorkflow(
  client: Client,
  workflowId: string,
  purpose: string,
  deadline?: number,
): Promise<WorkflowExecutionDescription | undefined> {
  return inTemporal(client, purpose, () => describe(client, workflowId), deadline);
}

async function describe(client: Client, workflowId: string): Promise<WorkflowExecutionDescription | undefined> {
  try {
    return await client.workflow.getHandle(workflowId).describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}
