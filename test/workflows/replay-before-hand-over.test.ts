import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { readFileSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';

// Histories recorded (`temporal workflow show --output json`) from the code before the event hand-over, of runs
// jammed as issue 9 found them: a publication and a refused generation each stuck retrying `dispatchEvent` because
// a webhook's URL could not be parsed. Such runs must keep replaying on today's workflows, so that the fixed
// `dispatchEvent` lets them finish instead of failing their next workflow task for good.
const histories = ['post-publication-jammed-in-dispatch.json', 'generate-post-jammed-in-dispatch.json'];

describe('runs that began before the event hand-over', () => {
  it.each(histories)('when %s is replayed on the prebuilt workflow bundle, then it replays without a nondeterminism error', async (file) => {
    const history = historyFromJSON(JSON.parse(readFileSync(new URL(`./histories/${file}`, import.meta.url), 'utf8')));
    await expect(Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history)).resolves.toBeUndefined();
  });
});
