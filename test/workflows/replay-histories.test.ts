import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker, type ReplayResult } from '@temporalio/worker';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import * as workflows from '../../workflows/index.ts';
import { workflowSpanSink } from '../../worker/workflow-span-sink.ts';

// Recorded histories (`temporal workflow show --output json`) of runs that may still be in flight when a new worker
// starts: each must replay on today's prebuilt workflow bundle without a nondeterminism error, or that run fails
// its next workflow task for good. The first group is from code that has changed since (each names the patch that
// keeps it replaying); the second is today's code on its important paths, recorded when it shipped, which guards
// the next change. Every workflow type has at least one. How to change a workflow and when to record: README,
// "Changing a workflow".
const histories: Record<string, string> = {
  // Before the event hand-over (patch `event-hand-over`): runs jammed retrying `dispatchEvent` because a webhook's
  // URL could not be parsed; the fixed activity lets them finish.
  'post-publication-jammed-in-dispatch.json': 'a publication stuck dispatching its event',
  'generate-post-jammed-in-dispatch.json': 'a refused generation stuck dispatching its event',
  // Before the fan-out (patch `event-fan-out`): an event's workflow that started one `deliverWebhook` per webhook,
  // and one of those deliveries waiting on its retry ladder (the type stays registered for such runs).
  'deliver-event-before-fan-out.json': 'an event delivered by one workflow per webhook',
  'deliver-webhook-waiting-on-ladder.json': 'a per-webhook delivery waiting for its second attempt',
  // Before planning and settling a publication became local activities (patch `publication-local-database-work`),
  // recorded through the api on the dev server.
  'post-publication-published-now.json': 'a publication published at once',
  'post-publication-scheduled-then-published.json': 'a publication moved and then published by its timer',
  'post-publication-sleeping.json': 'a publication still sleeping on its timer',
  'post-publication-cancelled.json': 'a publication cancelled while it slept',
  // Before the hand-over was a local activity (patch `event-hand-over-local`), recorded through the api.
  'post-publication-handed-over-by-activity.json': 'a publication published at once, its event handed over by an activity',
  'generate-post-refused-handed-over-by-activity.json': 'a refused generation whose post.failed event was handed over by an activity',
  // Before saving a generation became a local activity (patch `generation-local-save`), recorded through the api on
  // the dev server.
  'generate-post-saved-by-activity.json': 'a generation saved by an activity',
  // Before the image activity saved the generation itself, recorded through the api on the dev server: saved by
  // the workflow's local activity, which is now only the path after a save inside the activity failed.
  'generate-post-saved-locally.json': 'a generation saved by a local activity',
  // Before a publication whose first plan failed ended (patch `publication-ends-unplanned`), recorded from a worker
  // of that code whose first planning was refused (a deleted connection): a second plan went through and the run
  // sleeps on its timer. Without the patch, today's code would have ended the run after the first plan.
  'post-publication-first-plan-failed-then-sleeping.json': 'a publication whose first plan failed and whose second sleeps on its timer',
  // Before a local provider's image was a local activity (patch `generation-local-image`): a run started with
  // `imageRunsLocally` (by an api of today's code) on a worker of the code before, as in a rolling deploy, which
  // drew the image in an activity. Without the patch, today's code would expect a local activity there.
  'generate-post-local-image-on-an-older-worker.json': 'a generation for a local image that an older worker drew in an activity',

  // Before a publication's patches were folded into one marker (patch `publication-patches-folded`), recorded
  // through the api: it took three patch markers, its hand-over's two after the timer. The ones above replay on the
  // same old checks.
  'post-publication-re-planned-then-published.json': 'a publication planned, re-planned while it slept, then published by its timer',

  // Today's code (after the webhook fan-out), recorded through the api on the dev server.
  // After the image activity saved the generation itself (one activity, no marker).
  'generate-post-saved-by-its-image-activity.json': 'a generation saved by its image activity',
  // After a local provider's image became a local activity (patch `generation-local-image`): one workflow task.
  'generate-post-drawn-locally.json': 'a generation whose local image was drawn in a local activity',
  'generate-post-refused-by-provider.json': 'a generation refused by the image provider (the post fails, its event is handed over)',
  'render-post-rendered.json': 'a render after a generation',
  'generate-video-done.json': 'a video job that made its video',
  'generate-video-retried-after-heartbeat-timeout.json': 'a video job whose worker was killed mid-encode, retried after its heartbeat timed out',
  'deliver-event-waiting-on-ladder.json': "an event's delivery waiting on its retry ladder after a 503",
  'deliver-event-delivered-on-second-attempt.json': "an event's delivery that succeeded on its second attempt",
  'redeliver-webhook-sent.json': 'a redelivery of a logged delivery',
  // After a publication's patches were folded into one marker: a publish records one patch marker, not three.
  'post-publication-published-now-folded.json': 'a publication published at once, on one patch marker',
  'post-publication-scheduled-then-published-folded.json': 'a publication scheduled, then published by its timer, on one patch marker',
  'scheduled-generation-generated.json': 'a scheduled generation and its child generation',
  'clean-up-orphaned-objects-deleted.json': "a cleanup of a deleted post's images",
  'sweep-orphaned-objects-swept.json': 'a storage sweep',
  'reconcile-schedules-repaired.json': "a schedules reconcile that gave a schedule back its Temporal Schedule",
  // After video jobs recorded their end (patch `durable-video-jobs`): encoding on the video task queue.
  'generate-video-recorded-its-end.json': 'a video job that made its video and recorded it on its row',
  'generate-video-cancelled.json': 'a video job cancelled while it encoded, its end recorded as cancelled',
  // After a plan change was applied by a workflow, recorded through the api on the dev server: a downgrade pausing
  // two schedules and waking an event's delivery that waited on its ladder, which then stopped.
  'apply-workspace-plan-downgraded.json': 'a downgrade applied to two schedules and a waiting delivery',
  'deliver-event-stopped-by-downgrade.json': "an event's delivery woken on its ladder by a downgrade, stopped with the reason logged",
};

function historyOf(file: string) {
  return historyFromJSON(JSON.parse(readFileSync(new URL(`./histories/${file}`, import.meta.url), 'utf8')));
}

function workflowTypeOf(file: string): string {
  return historyOf(file).events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '';
}

describe('runs that began on earlier code', () => {
  const results = new Map<string, ReplayResult>();
  beforeAll(async () => {
    const replays = Object.keys(histories).map((file) => ({ workflowId: file, history: historyOf(file) }));
    for await (const result of Worker.runReplayHistories({ workflowBundle: { codePath: inject('workflowBundlePath') }, sinks: workflowSpanSink() }, replays)) {
      results.set(result.workflowId, result);
    }
  }, 120_000);

  it.each(Object.entries(histories))('when %s (%s) is replayed on the prebuilt workflow bundle, then it replays without a nondeterminism error', (file) => {
    expect(results.get(file)?.error).toBeUndefined();
    expect(results.has(file)).toBe(true);
  });

  it('when the workflow types are listed, then each has at least one recorded history', () => {
    const recorded = new Set(Object.keys(histories).map(workflowTypeOf));
    expect(Object.keys(workflows).filter((type) => !recorded.has(type))).toEqual([]);
  });
});
