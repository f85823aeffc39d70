import { WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Post } from '../../src/adapters/database/entities/post.ts';
import { WorkspaceEvent } from '../../src/adapters/database/entities/workspace-event.ts';
import { newId } from '../../src/adapters/database/new-id.ts';
import { AppError } from '../../src/common/errors/app-error.ts';
import type { ObjectStorage } from '../../src/adapters/object-storage/object-storage.ts';
import { ourSideSentence } from '../../src/adapters/temporal/failure-reasons.ts';
import { workflowFailureAsProblem } from '../../src/adapters/temporal/failure-problems.ts';
import { requestIdKey } from '../../src/adapters/temporal/request-id.ts';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import { webhookBody } from '../../src/adapters/webhook-sender/webhook-body.ts';
import { generatePost } from '../../workflows/generate-post.ts';
import { failureOf } from '../support/failure-of.ts';
import { createPostFixture } from '../support/post-fixtures.ts';
import { listenToTemporalLog } from '../support/temporal-runtime-log.ts';
import { startWorkflowTestBed, type WorkflowTestBed } from '../support/workflow-test-bed.ts';

// Storage that fails the way a real one does: its message names an internal host, port and path. The generation
// fails for good once the image activity runs out of attempts, and the client must read a sentence of ours in
// every place it can (the post, the `post.failed` webhook body, the 422), while the operator finds what storage
// said in the worker's log, next to the workflow id and the id of the request that started the run.

const internal = { host: 'objects.internal.example', port: '9000', path: '/var/lib/content-service/objects/workspaces' };
const storageMessage = `connect ETIMEDOUT ${internal.host}:${internal.port} while writing ${internal.path}/artwork.png`;

// What the workers of this process log (the runtime is one per process: test/support/temporal-runtime-log.ts).
const logLines: string[] = [];
let stopListening: () => void;

let bed: WorkflowTestBed;
beforeAll(async () => {
  bed = await startWorkflowTestBed();
  stopListening = listenToTemporalLog((line) => logLines.push(line));
});
afterAll(async () => {
  stopListening?.();
  await bed?.stop();
});

function brokenStorage(storage: ObjectStorage): ObjectStorage {
  return { ...storage, put: () => Promise.reject(new Error(storageMessage)) };
}

function expectNothingInternal(text: string): void {
  // The port as storage wrote it, after its colon: the digits alone turn up in a random post id now and then.
  for (const part of [internal.host, `:${internal.port}`, internal.path, 'ETIMEDOUT']) expect(text).not.toContain(part);
}

describe('a generation that fails on our side', () => {
  it(
    'when storage keeps failing, then the post, the post.failed body and the 422 read our sentence, and the log has what storage said with the workflow and request ids',
    { timeout: 60_000 },
    async () => {
      const post = await createPostFixture(bed.orm);
      const workflowId = workflowIds.postGenerate(post.id);
      const requestId = `request-${newId()}`;
      const error = await failureOf(
        bed.runWith(bed.activities({ storage: brokenStorage(bed.storage) }), (taskQueue) =>
          bed.client.workflow.execute(generatePost, {
            workflowId,
            taskQueue,
            // As the api starts it (src/adapters/temporal/client-interceptors.ts).
            memo: { [requestIdKey]: requestId },
            args: [{ postId: post.id, generationId: newId(), prompt: post.prompt, promptWasNew: false, format: '1:1', seed: 3, imageRunsLocally: false }],
          }),
        ),
        WorkflowFailedError,
      );

      const em = bed.orm.em.fork();
      const failed = await em.findOneOrFail(Post, post.id);
      expect(failed).toMatchObject({ status: 'failed', failureReason: ourSideSentence });
      const [event] = await em.find(WorkspaceEvent, { postId: post.id, type: 'post.failed' });
      const body = webhookBody(event!, null);
      expect(JSON.parse(body)).toMatchObject({ event: 'post.failed', data: { reason: ourSideSentence } });
      const problem = workflowFailureAsProblem(error, 'Generation');
      expect(problem).toBeInstanceOf(AppError);
      expect(problem).toMatchObject({ code: 'generation-failed', message: `Generation failed: ${ourSideSentence}` });
      for (const text of [failed.failureReason!, body, (problem as AppError).message]) expectNothingInternal(text);

      const logged = logLines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line.msg === 'Generation failed' && line.workflowId === workflowId);
      expect(logged).toMatchObject({ requestId, reason: ourSideSentence, failure: expect.stringContaining(storageMessage) });
    },
  );
});
