import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker, type ReplayResult } from '@temporalio/worker';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import * as workflows from '../../workflows/index.ts';
import { workflowSpanSink } from '../../worker/workflow-span-sink.ts';
import { infrastructure } from '../support/infrastructure.ts';

// Recorded histories of the 1.0 baseline (`test/workflows/recording/record-histories.ts`): one run of every workflow
// type on each of its important paths. A worker replays the history of every run in flight through today's code,
// so each must replay on today's prebuilt workflow bundle without a nondeterminism error, or that run fails its next
// workflow task for good. A change to a workflow's commands goes behind patched() and adds, before it lands, the
// histories of the old shape it must keep replaying (README, "Changing a workflow"). 1.0 is the oldest shape that
// replays: no run of an earlier one exists anywhere.
const histories: Record<string, string> = {
  'generate-post-drawn-locally.json': 'a generation whose local image was drawn in a local activity, saved by it',
  'generate-post-drawn-by-an-activity.json': 'a generation drawn by an activity (a provider over the network), saved by it',
  'generate-post-saved-by-the-workflow.json': 'a generation whose image activity could not save it, saved by the workflow',
  'generate-post-refused-by-provider.json': 'a generation refused by the provider (the post fails, its event is handed over)',
  'render-post-rendered.json': 'a render after a generation',
  'scheduled-generation-generated.json': 'a scheduled run and its child generation',
  'scheduled-generation-child-failed.json': 'a scheduled run whose child generation failed',
  'generate-video-done.json': 'a video job that made its video',
  'generate-video-failed.json': 'a video job whose encode was refused, its end recorded as failed',
  'generate-video-cancelled.json': 'a video job cancelled while it encoded, its end recorded as cancelled',
  'post-publication-published-now.json': 'a publication published at once, its event handed over',
  'post-publication-re-planned-then-published.json': 'a publication planned, re-planned while it slept, then published by its timer',
  'post-publication-cancelled.json': 'a publication cancelled while it slept',
  'post-publication-first-plan-failed.json': 'a publication whose first plan failed, ended as cancelled',
  'post-publication-one-connection-failed.json': 'a publication to two connections, one of which failed for good',
  'post-publication-continued-as-new.json': 'a publication re-planned past the plans of one run, continued as new',
  'post-publication-video-processed.json': 'a publication that waited on a durable timer while the platform processed its video',
  'deliver-event-delivered.json': "an event's delivery to a webhook on its first attempt",
  'deliver-event-delivered-on-second-attempt.json': "an event's delivery that succeeded on its second attempt",
  'deliver-event-exhausted.json': "an event's delivery still failing after the whole ladder",
  'deliver-event-stopped-by-plan-change.json': "an event's delivery woken on its ladder by a plan change, stopped at its next round",
  'redeliver-webhook-sent.json': 'a redelivery of a logged delivery',
  'clean-up-orphaned-objects-deleted.json': "a cleanup of a deleted post's images",
  'sweep-orphaned-objects-swept.json': 'a storage sweep',
  'sweep-events-two-pages.json': 'an event sweep that handed over a full page, then the rest',
  'reconcile-schedules-repaired.json': 'a schedules reconcile that gave a schedule back its Temporal Schedule',
  'apply-workspace-plan-downgraded.json': 'a downgrade applied to two schedules and a waiting delivery',
  'keep-connection-alive-refreshed-then-refused.json': 'a connection kept alive by two refreshes, then refused by its platform',
};

function historyOf(file: string) {
  return historyFromJSON(JSON.parse(readFileSync(new URL(`./histories/${file}`, import.meta.url), 'utf8')));
}

function workflowTypeOf(file: string): string {
  return historyOf(file).events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '';
}

describe('runs in flight when a new worker starts', () => {
  const results = new Map<string, ReplayResult>();
  beforeAll(async () => {
    const replays = Object.keys(histories).map((file) => ({ workflowId: file, history: historyOf(file) }));
    for await (const result of Worker.runReplayHistories(
      { workflowBundle: { codePath: infrastructure.workflowBundlePath }, sinks: workflowSpanSink() },
      replays,
    )) {
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
