import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { readFileSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';

// Histories recorded (`temporal workflow show --output json`) from earlier code, of runs that may still be in flight
// when a new worker starts. Each must replay on today's prebuilt workflow bundle without a nondeterminism error,
// or that run fails its next workflow task for good. Each entry says which change it guards (and its patch).
const histories = {
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
};

describe('runs that began on earlier code', () => {
  it.each(Object.entries(histories))('when %s (%s) is replayed on the prebuilt workflow bundle, then it replays without a nondeterminism error', async (file) => {
    const history = historyFromJSON(JSON.parse(readFileSync(new URL(`./histories/${file}`, import.meta.url), 'utf8')));
    await expect(Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history)).resolves.toBeUndefined();
  });
});
