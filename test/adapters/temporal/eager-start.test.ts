import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Activities } from '../../../activities/activity-signatures.ts';
import { clientOnWorkerConnection, startsEagerly } from '../../../src/adapters/temporal/connect.ts';
import { deliverEvent } from '../../../workflows/deliver-event.ts';
import { workflowSpanSink } from '../../../worker/workflow-span-sink.ts';
import { infrastructure } from '../../support/infrastructure.ts';

// Starting a workflow from a worker's activity (an event's delivery) through the worker's own connection: the dev
// server answers the start with the run's first task, which the worker sharing that connection runs at once.

const settings = { address: infrastructure.temporalAddress, namespace: 'default' } as Parameters<typeof clientOnWorkerConnection>[1];
let connection: NativeConnection;

beforeAll(async () => {
  connection = await NativeConnection.connect({ address: settings.address });
});
afterAll(async () => {
  await connection?.close();
});

describe('eager workflow start', () => {
  it("when a client on a worker's connection starts a workflow on that worker's queue, then it starts eagerly and completes there", async () => {
    const taskQueue = `eager-${randomUUID()}`;
    // An event no webhook takes any more: the run's first round finds nothing to send and the run ends.
    const activities: Partial<Activities> = { deliverToWebhooks: () => Promise.resolve([]) };
    const worker = await Worker.create({
      connection,
      taskQueue,
      workflowBundle: { codePath: infrastructure.workflowBundlePath },
      activities,
      sinks: workflowSpanSink(),
    });
    const client = clientOnWorkerConnection(connection, settings);
    expect(startsEagerly(client)).toBe(true);
    await worker.runUntil(async () => {
      const handle = await client.workflow.start(deliverEvent, {
        taskQueue,
        workflowId: `event-${randomUUID()}`,
        args: [{ eventId: randomUUID(), retryWaitsSeconds: [60] }],
        requestEagerStart: startsEagerly(client),
      });
      expect(handle.eagerlyStarted).toBe(true);
      expect(await handle.result()).toEqual({ webhooks: [] });
    });
  });

  it("when a client has a connection of its own (the api's), then it does not ask to start eagerly", async () => {
    const grpc = await Connection.connect({ address: settings.address });
    try {
      expect(startsEagerly(new Client({ connection: grpc }))).toBe(false);
    } finally {
      await grpc.close();
    }
  });
});
