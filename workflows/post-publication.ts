import {
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/activity-signatures.ts';
import { databaseWork, localDatabaseWork, socialPublish } from './contracts/activity-options.ts';
import { utc } from './current-details.ts';
import { failureReasonFor } from './failure-reason.ts';
import {
  cancelUpdate,
  planUpdate,
  publishAtQuery,
  type PostPublicationInput,
  type PublicationRequest,
  type PublicationResult,
} from './contracts/post-publication.ts';
import { handOver } from './hand-over-event.ts';

// Database work: unbounded only while the database is down (anything else fails at once, see databaseWork). The
// post's own changes wait for these; webhooks do not (startEventDelivery only hands the event to a workflow of its
// own, see handOver).
const { cancelPublication, markTargetFailed } = proxyActivities<Activities>(databaseWork);
// Planning and settling run as local activities: a publication costs Temporal no activity task, and publishing now
// one workflow task (its first plan records nothing, see the plan handler).
const { planPublication, settlePublication } = proxyLocalActivities<Activities>(localDatabaseWork);

// One post to one platform, bounded because the publication waits for it (see socialPublish).
/** How many times one target waits for its platform to process media before it fails. */
const maxMediaWaits = 200;
const { publishToTarget } = proxyActivities<Activities>(socialPublish);

// A publication re-planned again and again grows its history by a few events each time; past this many plans in
// one run (or when Temporal suggests it sooner), it continues as new with its plan, so a history never grows
// without bound.
export const plansPerRun = 100;

/**
 * A post's publication (`post-publish-<postId>`), started and steered by updates: it sleeps on a durable timer until
 * the publication time (moved by a new plan, ended by a cancel), then publishes to every planned connection, settles
 * the post's status and tells webhooks. Once it has started publishing, it refuses changes.
 */
export async function postPublication({ postId, publicationId, carried }: PostPublicationInput): Promise<PublicationResult> {
  let publishAt: number | undefined = carried?.publishAt;
  let targetIds: string[] = carried?.targetIds ?? [];
  let cancelled = false;
  let plans = 0;
  // Whether the plan is for later (the post was made `scheduled`): then only a post still scheduled is published.
  let scheduledPlan = carried !== undefined;
  let unplanned = false;
  // Plans and cancels being recorded: a plan that publishes at once must not overtake one sent before it.
  let recording = 0;
  let publishing = false;
  // The publishing under way: begun when the time comes, or by a first plan that publishes now.
  let publication: Promise<PublicationResult> | undefined;
  const refuseOncePublishing = () => {
    if (publishing) throw new Error('The publication is already under way and can no longer be changed.');
  };

  setHandler(
    planUpdate,
    async (request) => {
      const at = request.publishAt ? Math.max(Date.parse(request.publishAt), Date.now()) : Date.now();
      const toNoConnection = request.connectionIds.length === 0 && targetIds.length === 0;
      if (publishAt === undefined && recording === 0 && !cancelled && at <= Date.now() && toNoConnection && request.requestKey === undefined) {
        // The first plan, to publish now to no connection, has nothing to record (no target; the post changes only
        // when it is settled, which also finds a post deleted meanwhile). So it publishes at once and answers with
        // the result: publishing now costs one local activity (the settle) and the caller one call. With an
        // Idempotency-Key it is recorded like any plan, so that a retry finds it.
        publishAt = at;
        plans += 1;
        publication = publish();
        return { publishAt: new Date(at).toISOString(), scheduled: false, targetIds: [], result: await publication };
      }
      let plan;
      recording += 1;
      try {
        plan = await planPublication({
          postId,
          publicationId,
          publishAt: new Date(at).toISOString(),
          connectionIds: request.connectionIds,
          ...(request.overrides ? { overrides: request.overrides } : {}),
          ...(request.requestKey === undefined ? {} : { requestKey: request.requestKey }),
          immediate: at <= Date.now(),
        });
      } catch (error) {
        // A failed first plan leaves nothing to wait for: the run ends as cancelled, and the next publish starts a new one.
        if (publishAt === undefined) unplanned = true;
        throw error;
      } finally {
        recording -= 1;
      }
      if (plan.replayed) {
        // An earlier publication (a run that has ended) planned this request: its answer, and nothing for this run,
        // which ends at once when it has no plan of its own.
        if (publishAt === undefined) unplanned = true;
        return plan;
      }
      publishAt = at;
      targetIds = plan.targetIds;
      scheduledPlan = plan.scheduled;
      plans += 1;
      return plan;
    },
    { validator: (_request: PublicationRequest) => refuseOncePublishing() },
  );
  setHandler(
    cancelUpdate,
    async () => {
      recording += 1;
      try {
        await cancelPublication({ postId, publicationId });
      } finally {
        recording -= 1;
      }
      cancelled = true;
    },
    { validator: refuseOncePublishing },
  );
  setHandler(publishAtQuery, () => (publishAt === undefined ? null : new Date(publishAt).toISOString()));

  // A failed first plan ends the run only once no other plan is under way (one may yet succeed).
  await condition(() => publishAt !== undefined || cancelled || (unplanned && allHandlersFinished()));
  while (!publication) {
    if (cancelled || publishAt === undefined) return finish({ outcome: 'cancelled', publishedAt: null });
    const seen = plans;
    const wait = publishAt - Date.now();
    if (wait <= 0) {
      // Once publishing, changes are refused; one accepted before (still recording when the timer fired) must not be
      // answered as made and then ignored.
      if (allHandlersFinished()) publication = publish();
      else await condition(allHandlersFinished);
      continue;
    }
    if (plans >= plansPerRun || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      if (!cancelled) await continueAsNew<typeof postPublication>({ postId, publicationId, carried: { publishAt, targetIds } });
      continue;
    }
    // What the Temporal UI shows while the run sleeps (not a command: changing it never affects replay).
    setCurrentDetails(`Waiting until ${utc(publishAt)} to publish${targetIds.length > 0 ? ` to ${targetIds.length} connection(s)` : ''}`);
    // Wakes on time, or early when a new plan or a cancel arrives (then loops to decide again).
    await condition(() => cancelled || plans !== seen, wait);
  }
  let result: PublicationResult;
  try {
    result = await publication;
  } catch (error) {
    // A plan that published now fails with the same failure; its caller hears it before the run ends.
    await condition(allHandlersFinished);
    throw error;
  }
  return finish(result);

  /** Publishes to every planned connection, settles the post's status and hands its event to webhooks. */
  async function publish(): Promise<PublicationResult> {
    publishing = true;
    setCurrentDetails('Publishing');
    const publishedAt = new Date().toISOString();
    await publishToTargets(publishedAt);
    const settled = await settlePublication({ postId, publicationId, publishedAt, targetIds, onlyIfStillScheduled: scheduledPlan });
    if (settled.eventId && settled.subscribed) await handOver(settled.eventId);
    return { outcome: settled.outcome, publishedAt: settled.outcome === 'published' ? publishedAt : null };
  }

  /**
   * Publishes to every planned connection side by side; a target that fails for good is marked so. While a platform
   * processes the post's media the activity stops, and runs again after a durable timer: nothing sleeps in a worker,
   * and a worker that dies meanwhile loses nothing. (A history recorded before this loop has activities that
   * answered no wait, which leave it at once: it replays as it ran.)
   */
  async function publishToTargets(publishedAt: string): Promise<void> {
    await Promise.all(
      targetIds.map(async (targetId) => {
        try {
          let attemptsBefore = 0;
          for (let waits = 0; ; waits += 1) {
            const wait = await publishToTarget({
              targetId,
              publishedAt,
              onlyIfStillScheduled: scheduledPlan,
              ...(attemptsBefore > 0 ? { attemptsBefore } : {}),
            });
            if (typeof wait?.waitMs !== 'number') break;
            // The connectors give up on processing after half an hour; this bounds the history whatever they do.
            if (waits >= maxMediaWaits) {
              await markTargetFailed({
                targetId,
                reason: `The platform was still processing the media after ${maxMediaWaits} checks; publish it again later.`,
              });
              break;
            }
            attemptsBefore += wait.attempts;
            await sleep(wait.waitMs);
          }
        } catch (error) {
          await markTargetFailed({ targetId, reason: failureReasonFor(error, 'Publishing to a connection') });
        }
      }),
    );
  }

  async function finish(outcome: PublicationResult): Promise<PublicationResult> {
    await condition(allHandlersFinished);
    return outcome;
  }
}
