import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';

// Every activity option set the workflows use, named once with the reason for its timeouts and retries. A workflow
// picks a preset (and may add what only it knows, such as a task queue); it never writes a retry policy of its own.
// A contract like the workflows' own: the publish activity reads socialPublish's retry policy to tell clients when
// its next attempt is due, and an activity imports no workflow code.

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
 * The same database work as a local activity: it runs in the worker inside the workflow task that asks for it, so
 * it costs Temporal one marker instead of an activity task's three events and a workflow task of its own. For short
 * transactions whose only retries are outages; a retry after a longer backoff than the threshold waits on a
 * durable timer, so an outage of any length is still outlasted.
 */
export const localDatabaseWork: LocalActivityOptions = { ...databaseWork };

/**
 * A round of an event's delivery (deliverToWebhooks): database work, unbounded while the database or Temporal is
 * down, when nothing waits for it but the event's deliveries. A round sends to twenty slow receivers at once, so its
 * budget is a few request timeouts. It heartbeats after each request, so the longest silence of a live worker is one
 * request timeout: twice that notices a dead worker soon after its slowest request could have answered.
 * `requestTimeoutSeconds` defaults to the largest WEBHOOK_TIMEOUT_SECONDS allowed (runs started before it was passed).
 */
export function webhookRound(requestTimeoutSeconds = 30): ActivityOptions {
  return { ...databaseWork, startToCloseTimeout: '10 minutes', heartbeatTimeout: `${2 * requestTimeoutSeconds} seconds` };
}

/**
 * The first round of an event's delivery, as a local activity inside the workflow's first task. It hands over what
 * has not answered within slowAnswerMs, so it holds the task's slot about a second at most. A local activity has no
 * heartbeat: a worker that dies mid-round loses the task, so the next worker runs the round again.
 */
export const localWebhookRound: LocalActivityOptions = { ...localDatabaseWork, startToCloseTimeout: '10 minutes' };

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
 * The image provider call (generatePostImage), bounded because a customer's generate waits for it: heartbeats while
 * it waits (so a dead worker is noticed in 15 s, not at the timeout); an outage is retried at 5 s, 10 s, 20 s ... up
 * to 2 min apart, 8 attempts in all (about 8 minutes); a rate limit waits as long as the provider asks (at least
 * 60 s for Stability AI); a refusal is final.
 */
export const imageGeneration: ActivityOptions = {
  startToCloseTimeout: '3 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '2 minutes', maximumAttempts: 8 },
};

/**
 * The same call to a provider that runs locally (the local renderer: no network, no rate limit, well under a
 * second), as a local activity inside the workflow's first task: a generation then costs Temporal one workflow task
 * and a marker instead of an activity task and a second workflow task, the two hops that stood between the image
 * and the customer's answer. No heartbeat (a local activity has none): a worker that dies mid-image loses the task,
 * and the next worker draws the image again. Its failures are storage and database outages, retried on the same
 * ladder; a wait longer than a minute is a durable timer. The same time limit: under a burst the renders wait for
 * the worker's cores, and the SDK keeps a workflow task alive while its local activity runs.
 */
export const localImageGeneration: LocalActivityOptions = { startToCloseTimeout: imageGeneration.startToCloseTimeout, retry: imageGeneration.retry };

/**
 * Composing the post image (renderPostImage) reads storage and fetches the brand logo (a missing logo is a note, not
 * a failure); bounded at 5 attempts over about a minute because a customer's render waits for it.
 */
export const imageRender: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
};

/**
 * One post to one platform (publishToTarget). Bounded, because the publication waits for it: outages retry at 5 s,
 * 10 s, 20 s ... up to 5 min apart, 10 attempts (about half an hour); a rate limit waits as long as the platform asks;
 * a refusal (bad credentials, invalid content) is final. Heartbeats while media is processed, so a dead worker's
 * attempt moves on within 30 s. The activity reads this policy to tell clients when its next attempt is due, and
 * records each try (and, on a thread, each part a try published): maximumAttempts bounds a target's `attempts`
 * (openapi.yaml says 10 at most, 25 more on a thread). A thread's parts all go within one try's 5 minutes; a try that
 * runs out resumes at the first part not yet recorded.
 */
export const socialPublish: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 10 },
};

/**
 * Encoding a video (renderPostVideo) takes seconds to a minute; the heartbeat (every progress step) shows a dead
 * worker within 10 s, and the video is then made again from the start on another attempt. A refusal (no image,
 * ffmpeg rejecting the input) is final. Bounded (3 attempts): a job that cannot be made says so instead of running
 * for ever.
 */
export const videoEncoding: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 3 },
};

/**
 * Deleting orphaned objects from storage (deleteOrphanedObjects). Storage outages end; deleting a missing object
 * succeeds. So the activity is retried with a backoff that settles at one attempt every ten minutes, 50 attempts
 * (about seven hours). Bounded, so that a failure that repeats (a bug, a bucket policy refusing deletes) ends instead
 * of retrying for ever; nothing is lost when it does, because the batch's rows stay in orphaned_objects and the
 * storage-sweep schedule (every 15 minutes) tries them again. Nothing and nobody waits for a cleanup.
 */
export const storageCleanup: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 50 },
};

/**
 * One reconcile of every schedule (repairScheduleDrift): a Temporal describe or update per schedule that drifted,
 * heartbeating as it goes. One schedule Temporal refuses is a result, not a failure; what fails the attempt is the
 * database or Temporal being down, tried again 5 and 15 s later. Nothing waits for it, and the next
 * firing of its Temporal Schedule, minutes later, runs it again.
 */
export const scheduleReconcile: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumAttempts: 3 },
};

/**
 * One page of the event sweep (handOverForgottenEvents): a read, then a start on Temporal and an update per event,
 * fifty side by side. What fails the attempt is the database or Temporal being down, tried again 5 and 15 s later;
 * nothing waits for it, and the next firing of its Temporal Schedule, a minute later, runs it again.
 */
export const eventSweep: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumAttempts: 3 },
};

/**
 * Refreshing a connection's OAuth tokens (refreshSocialConnection). Unbounded: an outage or a rate limit must never
 * end a connection, so the refresh is tried again at 10 s, 20 s, 40 s ... then every 10 minutes until the platform
 * answers (a rate limit waits as long as the platform asks); only the platform refusing the grant, which the
 * activity reports as a result, ends it. One token request per attempt, so a minute is ample.
 */
export const connectionRefresh: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
};
