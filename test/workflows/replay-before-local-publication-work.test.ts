import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { readFileSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';

// Histories recorded (through the api, on the dev server) from the code before planning and settling a publication
// became local activities: published now, scheduled then moved and published by its timer, still sleeping on its
// timer, and cancelled. Runs like these are in flight when the new code is deployed, so they must keep replaying.
const histories = [
  'post-publication-published-now.json',
  'post-publication-scheduled-then-published.json',
  'post-publication-sleeping.json',
  'post-publication-cancelled.json',
];

describe('publications that began before planning and settling were local activities', () => {
  it.each(histories)('when %s is replayed on the prebuilt workflow bundle, then it replays without a nondeterminism error', async (file) => {
    const history = historyFromJSON(JSON.parse(readFileSync(new URL(`./histories/${file}`, import.meta.url), 'utf8')));
    await expect(Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history)).resolves.toBeUndefined();
  });
});
