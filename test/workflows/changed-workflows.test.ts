import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker } from '@temporalio/worker';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// What the replay test (replay-histories.test.ts) catches: a recorded render, replayed on the render workflow
// changed two ways. Changed without patched(), the run in flight fails with a nondeterminism error; changed behind
// patched(), it replays.

const history = historyFromJSON(JSON.parse(readFileSync(new URL('./histories/render-post-rendered.json', import.meta.url), 'utf8')));
const replayOn = (file: string) => Worker.runReplayHistory({ workflowsPath: fileURLToPath(new URL(`./changed/${file}`, import.meta.url)) }, history);

describe('a workflow changed while runs are in flight', () => {
  it('when the change is made without patched(), then replaying a run that began before fails with a nondeterminism error', { timeout: 60_000 }, async () => {
    await expect(replayOn('render-post-local-save-unpatched.ts')).rejects.toBeInstanceOf(DeterminismViolationError);
  });

  it('when the same change is made behind patched(), then the run replays', { timeout: 60_000 }, async () => {
    await expect(replayOn('render-post-local-save-patched.ts')).resolves.toBeUndefined();
  });
});
