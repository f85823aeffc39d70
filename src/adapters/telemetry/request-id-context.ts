import { AsyncLocalStorage } from 'node:async_hooks';

const requestIds = new AsyncLocalStorage<string>();

/**
 * Runs `work` on behalf of the API request `requestId`: the workflows it starts record that id (see
 * src/adapters/temporal/request-id.ts), and activity log lines carry it.
 */
export function runForRequest<T>(requestId: string, work: () => T): T {
  return requestIds.run(requestId, work);
}

/** The id of the API request the current work is for, if any. */
export function currentRequestId(): string | undefined {
  return requestIds.getStore();
}
