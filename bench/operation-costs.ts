import { scheduleIds } from '../src/adapters/temporal/workflow-ids.ts';
import { startStabilityServer } from '../test/fakes/stability-server.ts';
import type { ApiCall, BenchStack } from './bench-stack.ts';
import { startBenchPds } from './bench-pds.ts';
import { costCeilings, overCeilings, socialTargets, type CostedOperation } from './cost-ceilings.ts';
import { costOf, type Cost } from './history-cost.ts';
import { heading, printTable, type Row } from './table.ts';
import { costOfOperation, serviceScope, type CostScope } from './temporal-cost.ts';
import { startWebhookReceiver } from './webhook-receiver.ts';

// What each operation costs in Temporal (bench/history-cost.ts), one run of each on a quiet server, next to its
// ceiling (bench/cost-ceilings.ts). The counts do not depend on the machine, so a count over its ceiling fails the
// bench, naming the operation and the count, after the table has printed what was measured.

export async function benchCosts(stack: BenchStack): Promise<Row[]> {
  const measured = new Map<CostedOperation, Cost>();
  const scope = stack.scope;
  // The stack's workspace, which has no webhook: an api started for one operation (below) knows its key too.
  const call = stack.call;
  const { body: project } = await call<{ id: string }>('POST', '/projects', { name: 'Costs' });
  const newPost = async (caller: ApiCall = call) =>
    (await caller<{ id: string }>('POST', '/posts', { title: 'Costs', prompt: 'A calm sea at dusk', projectId: project.id })).body.id;
  const measure = async (operation: CostedOperation, run: () => Promise<unknown>, operationScope = scope) => {
    measured.set(operation, (await costOfOperation(operationScope, run)).cost);
  };

  // A first generate and publish, not counted, so the counts see warm caches (none of them changes a count).
  const warm = await newPost();
  await call('POST', `/posts/${warm}/generate`);
  await call('POST', `/posts/${warm}/publish`);

  const generated = await newPost();
  await measure('generate, local renderer', () => call('POST', `/posts/${generated}/generate`));
  await measure('render', () => call('POST', `/posts/${generated}/render`));
  await measure('video job', () => call('POST', `/dashboard/api/posts/${generated}/video`));
  await measure('publish now', () => call('POST', `/posts/${generated}/publish`));

  const scheduled = await newPost();
  await call('POST', `/posts/${scheduled}/generate`);
  await measure('scheduled publication', () => call('POST', `/posts/${scheduled}/schedule`, { scheduledAt: new Date(Date.now() + 5000).toISOString() }));

  const pds = await startBenchPds();
  try {
    const connectionIds: string[] = [];
    for (let index = 0; index < socialTargets; index += 1) {
      const account = await pds.createAccount(`costs${index}.test`);
      const { body: connection } = await call<{ id: string }>('POST', '/social-connections', {
        platform: 'bluesky',
        serviceUrl: pds.url,
        handle: account.handle,
        appPassword: account.appPassword,
      });
      connectionIds.push(connection.id);
    }
    const social = await newPost();
    await call('POST', `/posts/${social}/generate`);
    await measure('publish to 3 social targets', () => call('POST', `/posts/${social}/publish-social`, { connectionIds }));
  } finally {
    await pds.close();
  }

  // Once a year on 1 January, so only the trigger fires it.
  const { body: schedule } = await call<{ id: string }>('POST', '/schedules', { name: 'Costs', cronExpression: '0 0 1 1 *', projectId: project.id });
  await measure('schedule firing', () => stack.temporal.schedule.getHandle(scheduleIds.generation(schedule.id)).trigger());
  await call('DELETE', `/schedules/${schedule.id}`);

  await measureDeliveries(stack, scope, measured);

  const stability = await startStabilityServer();
  try {
    const provider = await stack.startService({ STABILITY_API_KEY: stability.apiKey, STABILITY_API_URL: stability.url });
    try {
      const drawn = await newPost(provider.call);
      await measure('generate, image provider', () => provider.call('POST', `/posts/${drawn}/generate`), serviceScope(stack.temporal, provider.config));
    } finally {
      await provider.stop();
    }
  } finally {
    await stability.close();
  }

  const rows = [
    heading('Temporal cost, one run each: executions / workflow tasks / activity tasks + local / events / actions'),
    ...(Object.keys(costCeilings) as CostedOperation[]).flatMap((operation) => {
      const cost = measured.get(operation);
      return cost ? [costRow(operation, cost)] : [];
    }),
  ];
  const over = [...measured].flatMap(([operation, cost]) => overCeilings(operation, cost));
  if (over.length > 0) {
    // What was measured, before the failure stops the section.
    printTable(rows);
    throw new Error(`Temporal cost over its ceiling: ${over.join('; ')}`);
  }
  return rows;
}

/** One event's deliveries, to one webhook and to twenty: every execution after the publication's own (the first). */
async function measureDeliveries(stack: BenchStack, scope: CostScope, measured: Map<CostedOperation, Cost>): Promise<void> {
  const receiver = await startWebhookReceiver();
  try {
    const { call } = await stack.newWorkspace('Cost of deliveries');
    const { body: project } = await call<{ id: string }>('POST', '/projects', { name: 'Deliveries' });
    let webhooks = 0;
    for (const [operation, count] of [
      ['event to 1 webhook', 1],
      ['event to 20 webhooks', 20],
    ] as const) {
      for (; webhooks < count; webhooks += 1) {
        await call('POST', '/webhooks', { url: `${receiver.url}/${webhooks}`, events: 'post.published', secret: receiver.secret });
      }
      const postId = (await call<{ id: string }>('POST', '/posts', { title: 'Event', prompt: 'Bench', projectId: project.id })).body.id;
      const { executions } = await costOfOperation(scope, () => call('POST', `/posts/${postId}/publish`));
      measured.set(operation, costOf(executions.slice(1).map((execution) => execution.history)));
    }
  } finally {
    await receiver.stop();
  }
}

function costRow(operation: CostedOperation, cost: Cost): Row {
  const ceiling: Cost = costCeilings[operation];
  return {
    benchmark: operation,
    figure: shape(cost),
    floor: '',
    ratio: '',
    target: `≤ ${shape(ceiling)}`,
    met: overCeilings(operation, cost).length === 0 ? 'yes' : 'NO',
  };
}

function shape(cost: Cost): string {
  return `${cost.workflowExecutions} / ${cost.workflowTasks} / ${cost.activityTasks} + ${cost.localActivities} / ${cost.historyEvents} / ${cost.billableActions}`;
}
