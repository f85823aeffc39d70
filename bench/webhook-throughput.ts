import { ApiCallError, type BenchStack } from './bench-stack.ts';
import { settings } from './settings.ts';
import { percentile, runConcurrently, timed } from './stats.ts';
import { alone, atMost, below, compared, heading, ratioAtLeast, type Row } from './table.ts';
import { describeExecutions, executionsOf, historyEvents, waitUntilQuiet, type Execution } from './temporal-cost.ts';
import { workflowRate } from './temporal-floor.ts';
import { startWebhookReceiver, type Receipt } from './webhook-receiver.ts';

// Publishing (POST /posts/{id}/publish, 8 at a time) next to the rate of one-activity workflows on the same Temporal;
// then the same number of posts published to BENCH_WEBHOOKS webhooks on a local HTTPS receiver that checks every
// signature, next to the publish-only rate; and what one publish and one event's deliveries cost in Temporal. Only
// the public API and Temporal's visibility are used, so this keeps measuring whatever delivery design is behind it.

const concurrency = 8;
const deliveryTimeoutMs = 180_000;

export async function benchWebhooks(stack: BenchStack): Promise<Row[]> {
  const receiver = await startWebhookReceiver();
  try {
    const { body: project } = await stack.call<{ id: string }>('POST', '/projects', { name: 'Webhooks' });
    const newPosts = async (count: number) => {
      const ids: string[] = [];
      await runConcurrently(count, concurrency, async (index) => {
        ids.push((await stack.call<{ id: string }>('POST', '/posts', { title: `Event ${index}`, prompt: 'Bench', projectId: project.id })).body.id);
      });
      return ids;
    };
    // A 503 (Temporal did not take the start in time) is retried a second later, as a client would, and counted. The
    // start may have gone through all the same; then the retry answers 409 (already under way) and that is success.
    let unavailable = 0;
    const publish = async (postId: string, retry = false): Promise<unknown> => {
      try {
        return await stack.call('POST', `/posts/${postId}/publish`);
      } catch (error) {
        if (retry && error instanceof ApiCallError && error.status === 409) return undefined;
        if (!(error instanceof ApiCallError && error.status === 503)) throw error;
        unavailable += 1;
        await new Promise((resolveWait) => setTimeout(resolveWait, 1000));
        return publish(postId, true);
      }
    };
    const publishAll = async (postIds: string[]) => {
      const { ms } = await timed(() => runConcurrently(postIds.length, concurrency, (index) => publish(postIds[index]!)));
      return postIds.length / (ms / 1000);
    };
    const webhookIds: string[] = [];
    const addWebhooks = async (count: number) => {
      for (let index = 0; index < count; index += 1) {
        const url = `${receiver.url}/${webhookIds.length}`;
        webhookIds.push((await stack.call<{ id: string }>('POST', '/webhooks', { url, events: 'post.published', secret: receiver.secret })).body.id);
      }
    };
    const publishOneCost = async () => {
      const [postId] = await newPosts(1);
      return executionsOf(stack, () => publish(postId!));
    };

    // Floors and publish-only, before any webhook exists.
    await publishAll(await newPosts(2));
    await waitUntilQuiet(stack);
    const emptyRate = await workflowRate(stack, 'emptyWorkflow', settings.workflows, concurrency);
    const oneActivityRate = await workflowRate(stack, 'oneActivityWorkflow', settings.workflows, concurrency);
    const plainPosts = await newPosts(settings.events);
    await waitUntilQuiet(stack);
    const publishRate = await publishAll(plainPosts);
    const publishCost = await publishOneCost();

    await addWebhooks(1);
    const oneWebhookCost = await publishOneCost();
    await addWebhooks(settings.webhooks - 1);
    const manyWebhooksCost = settings.webhooks > 1 ? await publishOneCost() : oneWebhookCost;

    const posts = await newPosts(settings.events);
    await waitUntilQuiet(stack);
    receiver.receipts.length = 0;
    const expected = settings.events * settings.webhooks;
    const started = Date.now();
    await publishAll(posts);
    await receiver.waitFor(expected, deliveryTimeoutMs);
    const firstReceipts = [...new Map(receiver.receipts.toReversed().map((receipt) => [receipt.delivery, receipt] as const)).values()];
    const arrived = new Set(firstReceipts.map((receipt) => receipt.delivery));
    const lost = posts.flatMap((postId) => webhookIds.map((_id, index) => `${postId} ${new URL(`${receiver.url}/${index}`).pathname}`)).filter((delivery) => !arrived.has(delivery)).length;
    const deliveryRate = firstReceipts.length / ((Math.max(...firstReceipts.map((receipt) => receipt.at)) - started) / 1000);
    // Late duplicates would arrive after the workflows end.
    await waitUntilQuiet(stack);

    for (const id of webhookIds) await stack.call('DELETE', `/webhooks/${id}`);
    const shape = `${settings.events} posts × ${settings.webhooks} webhooks`;
    return [
      heading('publish and webhooks (8 publishes at a time)'),
      alone('empty workflows, 8 at a time', emptyRate, '/s'),
      alone('one-activity workflows, 8 at a time', oneActivityRate, '/s'),
      compared('publish, posts', publishRate, '/s', { value: oneActivityRate, name: 'one-activity workflows' }, ratioAtLeast(0.5)),
      compared(`${shape}: deliveries`, deliveryRate, '/s', { value: publishRate, name: 'publish-only posts' }, ratioAtLeast(10)),
      alone(`${shape}: lag event→receipt p95`, percentile(lags(firstReceipts), 95), 'ms', below(1000, 'ms'), `(p50 ${Math.round(percentile(lags(firstReceipts), 50))} ms)`),
      alone(`${shape}: lost`, lost, '', atMost(0, '')),
      alone(`${shape}: duplicates`, receiver.receipts.length - firstReceipts.length, '', atMost(0, ''), `(${freshIds(receiver.receipts, firstReceipts)} with a delivery id of their own)`),
      alone('publishes answered 503 (retried 1 s later; 409 then counts as done)', unavailable, '', atMost(0, '')),
      alone(`${shape}: bad signatures`, receiver.receipts.filter((receipt) => !receipt.valid).length, '', atMost(0, '')),
      alone('Temporal cost of one publish, no webhook', describeExecutions(publishCost), ''),
      ...deliveryCost('1 webhook', oneWebhookCost),
      ...(settings.webhooks > 1 ? deliveryCost(`${settings.webhooks} webhooks`, manyWebhooksCost) : []),
    ];
  } finally {
    await receiver.stop();
  }
}

/** An event's deliveries: every execution after the publication's own (the first). */
function deliveryCost(webhooks: string, publishExecutions: Execution[]): Row[] {
  const delivery = publishExecutions.slice(1);
  return [alone(`Temporal cost of one event's deliveries, ${webhooks}`, delivery.length, '', atMost(1, ''), `(${historyEvents(delivery)})`)];
}

/** Duplicates a receiver cannot recognise: another delivery id for a delivery it already has. */
function freshIds(receipts: Receipt[], firstReceipts: Receipt[]): number {
  const idOf = new Map(firstReceipts.map((receipt) => [receipt.delivery, receipt.deliveryId]));
  return new Set(receipts.filter((receipt) => receipt.deliveryId !== idOf.get(receipt.delivery)).map((receipt) => receipt.deliveryId)).size;
}

function lags(receipts: Receipt[]): number[] {
  return receipts.map((receipt) => receipt.lagMs);
}
