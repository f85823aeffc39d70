import {
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineUpdate,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { PublicationPlan } from '../src/domain/publishing/record-publication-plan.ts';
import { databaseWork, localDatabaseWork, socialPublish } from './activity-options.ts';
import { utc } from './current-details.ts';
import { failureReasonFor } from './failure-reason.ts';
import { patchesFoldedInto } from './folded-patches.ts';
import { handOver } from './hand-over-event.ts';

// Database work: unbounded only while the database is down (anything else fails at once, see databaseWork). The
// post's own changes wait for these; webhooks do not (startEventDelivery only hands the event to a workflow of its
// own, see handOver).
const { planPublication, cancelPublication, settlePublication, markTargetFailed } = proxyActivities<Activities>(databaseWork);
// Planning and settling, the two steps every publication takes, run as local activities: a publish costs Temporal
// two workflow tasks and one activity (the event hand-over) instead of four and three.
const local = proxyLocalActivities<Activities>(localDatabaseWork);

// Runs that began before planning and settling were local activities scheduled them as activities: replaying such a
// run must schedule the same commands, so the runs without this marker keep doing that. Once no such run is left,
// deprecatePatch() it.
export const localPublicationWorkPatch = 'publication-local-database-work';

// A plan or cancel accepted before the publication time may still be recording when the timer fires; runs that
// began before this marker published at once, and the client heard the change was made. With it, the run hears the
// change out first. Only runs that met that race carry it.
export const hearChangesOutPatch = 'publication-hears-changes-out';

// A run whose first plan failed (a deleted connection or post) has nothing to wait for; runs that began before this
// marker waited for ever for a plan. With it, such a run ends as cancelled, and the next publish starts a new run.
export const endUnplannedPatch = 'publication-ends-unplanned';

// Runs that begin with this marker take all four patches above and the hand-over's two (eventHandOverPatch,
// localHandOverPatch) on it alone (see patchesFoldedInto): a publish records one patch marker instead of three.
export const publicationPatchesFolded = 'publication-patches-folded';

// One post to one platform, bounded because the publication waits for it (see socialPublish).
const { publishToTarget } = proxyActivities<Activities>(socialPublish);

export type PublicationRequest = {
  /** When to publish (ISO 8601); null or in the past: now. */
  publishAt: string | null;
  /** Social connections to publish to; none: publish the post itself only. */
  connectionIds: string[];
};

/** Plan (or re-plan) the publication: when, and to which connections. Answers once it is recorded. */
export const planUpdate = defineUpdate<PublicationPlan, [PublicationRequest]>('plan');
/** Cancel a publication that has not started yet. */
export const cancelUpdate = defineUpdate<void, []>('cancel');
export const publishAtQuery = defineQuery<string | null>('publishAt');

export type PublicationResult = { outcome: 'published' | 'failed' | 'cancelled'; publishedAt: string | null };

export type PostPublicationInput = {
  postId: string;
  /**
   * The publication's identity (its publish targets, its event's source): given by whoever starts the workflow,
   * and carried through continue-as-new, so a new run or a reset never makes it another publication. Runs started
   * before it was given used their run id, which they keep.
   */
  publicationId?: string;
  /** The plan a previous run of this publication continued as new with: the run goes on waiting for it. */
  carried?: { publishAt: number; targetIds: string[] };
};

// A publication re-planned again and again grows its history by a few events each time; past this many plans in
// one run (or when Temporal suggests it sooner), it continues as new with its plan, so a history never grows
// without bound.
export const plansPerRun = 100;

/**
 * A post's publication (`post-publish-<postId>`), started and steered by updates: it sleeps on a durable timer until
 * the publication time (moved by a new plan, ended by a cancel), then publishes to every planned connection, settles
 * the post's status and tells webhooks. Once it has started publishing, it refuses changes.
 */
export async function postPublication({ postId, publicationId = workflowInfo().runId, carried }: PostPublicationInput): Promise<PublicationResult> {
  const isPatched = patchesFoldedInto(publicationPatchesFolded);
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
        plan = await (isPatched(localPublicationWorkPatch) ? local.planPublication : planPublication)({ postId, publicationId, publishAt: new Date(at).toISOString(), connectionIds: request.connectionIds, immediate: at <= Date.now() });
      } catch (error) {
        if (publishAt === undefined && isPatched(endUnplannedPatch)) unplanned = true;
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
      // Once publishing, changes are refused; one accepted before must not be answered as made and then ignored.
      if (!allHandlersFinished() && isPatched(hearChangesOutPatch)) {
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
  const settled = await (isPatched(localPublicationWorkPatch) ? local.settlePublication : settlePublication)({ postId, publicationId, publishedAt, targetIds, onlyIfStillScheduled: scheduledPlan });
  if (settled.eventId) await handOver(settled.eventId, isPatched);
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
