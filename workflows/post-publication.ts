import {
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/activity-signatures.ts';
import { databaseWork, localDatabaseWork, socialPublish } from './activity-options.ts';
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
// Planning and settling, the two steps every publication takes, run as local activities: a publish costs Temporal
// two workflow tasks and no activity task.
const { planPublication, settlePublication } = proxyLocalActivities<Activities>(localDatabaseWork);

// One post to one platform, bounded because the publication waits for it (see socialPublish).
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
  let publishing = false;
  const refuseOncePublishing = () => {
    if (publishing) throw new Error('The publication is already under way and can no longer be changed.');
  };

  setHandler(
    planUpdate,
    async (request) => {
      const at = request.publishAt ? Math.max(Date.parse(request.publishAt), Date.now()) : Date.now();
      let plan;
      try {
        plan = await planPublication({
          postId,
          publicationId,
          publishAt: new Date(at).toISOString(),
          connectionIds: request.connectionIds,
          immediate: at <= Date.now(),
        });
      } catch (error) {
        // A failed first plan leaves nothing to wait for: the run ends as cancelled, and the next publish starts a new one.
        if (publishAt === undefined) unplanned = true;
        throw error;
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
      await cancelPublication({ postId, publicationId });
      cancelled = true;
    },
    { validator: refuseOncePublishing },
  );
  setHandler(publishAtQuery, () => (publishAt === undefined ? null : new Date(publishAt).toISOString()));

  // A failed first plan ends the run only once no other plan is under way (one may yet succeed).
  await condition(() => publishAt !== undefined || cancelled || (unplanned && allHandlersFinished()));
  for (;;) {
    if (cancelled || publishAt === undefined) return finish({ outcome: 'cancelled', publishedAt: null });
    const seen = plans;
    const wait = publishAt - Date.now();
    if (wait <= 0) {
      // Once publishing, changes are refused; one accepted before (still recording when the timer fired) must not be
      // answered as made and then ignored.
      if (!allHandlersFinished()) {
        await condition(allHandlersFinished);
        continue;
      }
      break;
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

  publishing = true;
  setCurrentDetails('Publishing');
  const publishedAt = new Date().toISOString();
  await publishToTargets();
  const settled = await settlePublication({ postId, publicationId, publishedAt, targetIds, onlyIfStillScheduled: scheduledPlan });
  if (settled.eventId) await handOver(settled.eventId);
  return finish({ outcome: settled.outcome, publishedAt: settled.outcome === 'published' ? publishedAt : null });

  /** Publishes to every planned connection side by side; a target that fails for good is marked so. */
  async function publishToTargets(): Promise<void> {
    await Promise.all(
      targetIds.map(async (targetId) => {
        try {
          await publishToTarget({ targetId, publishedAt, onlyIfStillScheduled: scheduledPlan });
        } catch (error) {
          await markTargetFailed({ targetId, reason: failureReasonFor(error, 'Publishing to a connection') });
        }
      }),
    );
  }

  async function finish(result: PublicationResult): Promise<PublicationResult> {
    await condition(allHandlersFinished);
    return result;
  }
}
