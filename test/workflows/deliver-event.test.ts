import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliverToWebhooksInput, RoundResult } from '../../activities/deliver-to-webhooks.ts';
import type { Activities } from '../../activities/activity-signatures.ts';
import { deliverEventType } from '../../workflows/contracts/deliver-event.ts';
import { deliverEvent } from '../../workflows/deliver-event.ts';
import { startWorkflowTestBed, type WorkflowTestBed } from '../support/workflow-test-bed.ts';

// The branches of an event's delivery with stub activities on the time-skipping server: the whole retry ladder
// (nearly three days) in a second. Delivery against real receivers is in post-publication.test.ts.

let bed: WorkflowTestBed;
// The production ladder (the default of WEBHOOK_RETRY_WAITS_SECONDS), which a delivery is started with.
let retryWaitsSeconds: readonly number[];
beforeAll(async () => {
  bed = await startWorkflowTestBed();
  retryWaitsSeconds = bed.config.webhooks.retryWaitsSeconds;
});
afterAll(() => bed?.stop());

/** Delivers a made-up event on a worker whose deliverToWebhooks answers each round with `answer`. */
async function deliverWith(answer: (round: DeliverToWebhooksInput) => RoundResult) {
  const rounds: DeliverToWebhooksInput[] = [];
  const stubs: Partial<Activities> = {
    deliverToWebhooks: (round) => {
      rounds.push(round);
      return Promise.resolve(answer(round));
    },
  };
  const startedAt = await bed.env.currentTimeMs();
  const result = await bed.runWith(stubs, (taskQueue) =>
    bed.client.workflow.execute(deliverEvent, { workflowId: `event-${randomUUID()}`, taskQueue, args: [{ eventId: randomUUID(), retryWaitsSeconds }] }),
  );
  return { result, rounds, serverTimeMs: (await bed.env.currentTimeMs()) - startedAt };
}

const attempt = (webhookId: string, outcome: 'delivered' | 'failed') =>
  ({ webhookId, deliveryId: `delivery-${webhookId}`, outcome, statusCode: outcome === 'delivered' ? 200 : 503, error: null }) as const;

describe('deliverEvent branches, with stub activities', () => {
  it("when its starter names the workflow, then the name is the workflow function's (it starts it by name)", () => {
    expect(deliverEventType).toBe(deliverEvent.name);
  });

  it('when a webhook fails on every rung, then it is exhausted after the whole ladder and only it was retried', async () => {
    const { result, rounds, serverTimeMs } = await deliverWith((round) =>
      round.attempt === 1 ? [attempt('steady', 'delivered'), attempt('failing', 'failed')] : [attempt('failing', 'failed')],
    );
    expect(result.webhooks).toEqual([
      { webhookId: 'steady', deliveryId: 'delivery-steady', outcome: 'delivered', attempts: 1 },
      { webhookId: 'failing', deliveryId: 'delivery-failing', outcome: 'exhausted', attempts: retryWaitsSeconds.length + 1 },
    ]);
    expect(rounds.map((round) => round.attempt)).toEqual(Array.from({ length: retryWaitsSeconds.length + 1 }, (_, index) => index + 1));
    expect(rounds.slice(1).every((round) => round.webhookIds?.length === 1 && round.webhookIds[0] === 'failing')).toBe(true);
    expect(serverTimeMs).toBeGreaterThanOrEqual(retryWaitsSeconds.reduce((total, wait) => total + wait * 1000, 0));
  });

  it('when the first round leaves a slow receiver out, then an activity of its own sends it the same attempt at once', async () => {
    const { result, rounds } = await deliverWith((round) =>
      round.webhookIds ? [attempt('slow', 'delivered')] : [attempt('prompt', 'delivered'), { webhookId: 'slow', outcome: 'deferred' }],
    );
    expect(result.webhooks).toEqual([
      { webhookId: 'prompt', deliveryId: 'delivery-prompt', outcome: 'delivered', attempts: 1 },
      { webhookId: 'slow', deliveryId: 'delivery-slow', outcome: 'delivered', attempts: 1 },
    ]);
    expect(rounds).toEqual([
      { eventId: expect.any(String), attempt: 1 },
      { eventId: expect.any(String), attempt: 1, webhookIds: ['slow'] },
    ]);
  });

  it('when the first round hands over a request still under way, then the activity after it is told to await its answer', async () => {
    const { result, rounds } = await deliverWith((round) =>
      round.webhookIds
        ? [attempt('silent', 'delivered'), attempt('slow', 'delivered')]
        : [attempt('prompt', 'delivered'), { webhookId: 'silent', outcome: 'deferred', inFlightUntil: 1_000 }, { webhookId: 'slow', outcome: 'deferred' }],
    );
    expect(result.webhooks.map((webhook) => [webhook.webhookId, webhook.outcome, webhook.attempts])).toEqual([
      ['prompt', 'delivered', 1],
      ['silent', 'delivered', 1],
      ['slow', 'delivered', 1],
    ]);
    expect(rounds).toEqual([
      { eventId: expect.any(String), attempt: 1 },
      { eventId: expect.any(String), attempt: 1, webhookIds: ['silent', 'slow'], inFlight: { webhookIds: ['silent'], until: 1_000 } },
    ]);
  });

  it('when a failing webhook stops taking the event before its next rung, then it ends skipped with the attempts it had', async () => {
    const { result, rounds } = await deliverWith((round) =>
      round.attempt === 1 ? [attempt('leaving', 'failed')] : [{ webhookId: 'leaving', outcome: 'skipped' }],
    );
    expect(result.webhooks).toEqual([{ webhookId: 'leaving', deliveryId: 'delivery-leaving', outcome: 'skipped', attempts: 1 }]);
    expect(rounds).toHaveLength(2);
  });
});
