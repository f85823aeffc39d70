import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';

/**
 * Work on our own database (and, for dispatching, our own Temporal). Unbounded, because the only failures that reach
 * a retry are "the dependency is down" ones: the activity boundary (activities/database-work.ts) makes every other
 * error (bad data, a bug, a constraint violation) non-retryable, so it fails the workflow at once instead of jamming
 * it. While the database is down nothing else can progress either; once it is back the next attempt, at most a
 * minute later, goes through.
 */
export const databaseWork: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
};

/**
 * One HTTP attempt to a customer's endpoint (attemptWebhookDelivery). The receiver's failure is a result, not an
 * exception; only our own trouble (database, storage) is retried here, bounded at 5 attempts over about half a
 * minute: a failure that persists ends the run, visibly in the Temporal UI, and touches no other webhook.
 */
export const webhookAttempt: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumAttempts: 5 },
};

/**
 * The same database work as a local activity: it runs in the worker inside the workflow task that asks for it, so
 * it costs Temporal one marker instead of an activity task's three events and a workflow task of its own. For short
 * transactions whose only retries are outages; a retry after a longer backoff than the threshold waits on a
 * durable timer, so an outage of any length is still outlasted.
 */
export const localDatabaseWork: LocalActivityOptions = { ...databaseWork };
