import type { BenchStack } from './bench-stack.ts';
import { settings } from './settings.ts';
import { percentile, runConcurrently } from './stats.ts';
import { alone, below, compared, heading, type Row } from './table.ts';
import { waitUntilQuiet } from './temporal-cost.ts';
import type { EndpointBehaviour } from './webhook-receiver-thread.ts';
import { startWebhookReceiver, type Receipt, type WebhookReceiver } from './webhook-receiver.ts';

// Receivers as customers run them: each event goes to BENCH_WEBHOOKS webhooks (20) on the local HTTPS receiver, of
// which 2 answer 503 for a while and 2 answer only after 5 s. The healthy receivers' lag (event → receipt) must not
// suffer for them: its p99 is held under a second, beside the same lag in a round where every receiver is healthy.
// The failing ones recover once every event has been refused twice, and must then get every event exactly once: the
// stack runs a retry ladder shortened by configuration (WEBHOOK_RETRY_WAITS_SECONDS in bench/bench-stack.ts), the
// workflow is the one production runs. A delivery lost, duplicated or badly signed fails the bench.

const concurrency = 8;
const refusing = 2;
const slow = 2;
const slowAnswerMs = 5000;
/** Attempts each failing receiver refuses per event before it recovers: the ladder is climbed, not just entered. */
const refusalsBeforeRecovery = 2;
/** The shortened ladder (half a minute) plus the slow answers, with room for a busy machine. */
const roundTimeoutMs = 180_000;

export async function benchFailingReceivers(stack: BenchStack): Promise<Row[]> {
  if (settings.webhooks < refusing + slow + 1) throw new Error(`the receivers section needs BENCH_WEBHOOKS ≥ ${refusing + slow + 1}`);
  const receiver = await startWebhookReceiver();
  try {
    return await measure(stack, receiver);
  } finally {
    await receiver.stop();
  }
}

async function measure(stack: BenchStack, receiver: WebhookReceiver): Promise<Row[]> {
  const { call } = await stack.newWorkspace('Receivers');
  const { body: project } = await call<{ id: string }>('POST', '/projects', { name: 'Receivers' });
  const paths = Array.from({ length: settings.webhooks }, (_, index) => `${new URL(receiver.url).pathname}/r${index}`);
  const [refusingPaths, slowPaths, healthyPaths] = [paths.slice(0, refusing), paths.slice(refusing, refusing + slow), paths.slice(refusing + slow)];
  const webhookIds: string[] = [];
  for (const path of paths) {
    const url = new URL(path, receiver.url).href;
    webhookIds.push((await call<{ id: string }>('POST', '/webhooks', { url, events: 'post.published', secret: receiver.secret })).body.id);
  }
  const newPosts = async (count: number) => {
    const ids: string[] = [];
    await runConcurrently(count, concurrency, async (index) => {
      ids.push((await call<{ id: string }>('POST', '/posts', { title: `Event ${index}`, prompt: 'Bench', projectId: project.id })).body.id);
    });
    return ids;
  };
  /** Publishes the posts 8 at a time and returns every delivery (post × path) their events must reach. */
  const publish = async (postIds: string[]) => {
    await runConcurrently(postIds.length, concurrency, (index) => call('POST', `/posts/${postIds[index]}/publish`));
    return (among: string[]) => postIds.flatMap((postId) => among.map((path) => `${postId} ${path}`));
  };
  const onlyAt = (among: string[]) => (receipt: Receipt) => among.includes(receipt.delivery.slice(receipt.delivery.indexOf(' ') + 1));

  // Warm-up, every receiver healthy, then a round of the same size as the measured one with every receiver healthy:
  // the lag the healthy receivers would have had anyway.
  const [warmUp, healthyRound, failingRound] = [await newPosts(2), await newPosts(settings.events), await newPosts(settings.events)];
  await publish(warmUp);
  await until(() => distinct(receiver.receipts) >= warmUp.length * paths.length, 'the warm-up deliveries');
  await waitUntilQuiet(stack.scope);
  receiver.receipts.length = 0;
  await publish(healthyRound);
  await until(() => distinct(receiver.receipts) >= healthyRound.length * paths.length, "the all-healthy round's deliveries");
  const floorLags = receiver.receipts.filter(onlyAt(healthyPaths)).map((receipt) => receipt.lagMs);
  await waitUntilQuiet(stack.scope);

  receiver.receipts.length = 0;
  receiver.refusals.length = 0;
  receiver.behave({
    ...Object.fromEntries(refusingPaths.map((path): [string, EndpointBehaviour] => [path, 'refuse'])),
    ...Object.fromEntries(slowPaths.map((path): [string, EndpointBehaviour] => [path, { delayMs: slowAnswerMs }])),
  });
  const published = Date.now();
  const expected = await publish(failingRound);
  const healthyExpected = expected(healthyPaths);
  await until(() => covers(receiver.receipts.filter(onlyAt(healthyPaths)), healthyExpected), "the healthy receivers' deliveries");
  const healthyLags = receiver.receipts.filter(onlyAt(healthyPaths)).map((receipt) => receipt.lagMs);
  const refusedEnough = () => {
    const refused = new Map<string, number>();
    for (const delivery of receiver.refusals) refused.set(delivery, (refused.get(delivery) ?? 0) + 1);
    return expected(refusingPaths).every((delivery) => (refused.get(delivery) ?? 0) >= refusalsBeforeRecovery);
  };
  await until(refusedEnough, `${refusalsBeforeRecovery} refused attempts of every event at each failing receiver`);
  receiver.behave(Object.fromEntries(refusingPaths.map((path): [string, EndpointBehaviour] => [path, 'take'])));
  const recovered = Date.now();
  const refusedAttempts = receiver.refusals.length;
  await until(() => covers(receiver.receipts, expected(paths)), 'every delivery, the recovered receivers included');
  const lastRecovered = Math.max(...receiver.receipts.filter(onlyAt(refusingPaths)).map((receipt) => receipt.at));
  // Late duplicates would arrive after the deliveries' workflows end.
  await waitUntilQuiet(stack.scope);

  const arrived = new Set(receiver.receipts.map((receipt) => receipt.delivery));
  const lost = expected(paths).filter((delivery) => !arrived.has(delivery)).length;
  const duplicated = receiver.receipts.length - arrived.size;
  const unsigned = receiver.receipts.filter((receipt) => !receipt.valid).length;
  const takenWhileRefusing = receiver.receipts.filter((receipt) => onlyAt(refusingPaths)(receipt) && receipt.at < recovered).length;
  const failures = [
    [lost, 'lost'],
    [duplicated, 'duplicated'],
    [unsigned, 'unsigned (a signature did not verify)'],
    [takenWhileRefusing, 'taken by a failing receiver before it recovered'],
  ].flatMap(([count, what]) => (count ? [`${count} ${what}`] : []));
  if (failures.length > 0) throw new Error(`receivers: deliveries ${failures.join(', ')}`);

  for (const id of webhookIds) await call('DELETE', `/webhooks/${id}`);
  const shape = `${settings.events} posts × ${settings.webhooks} webhooks, ${refusing} answering 503 and ${slow} after ${slowAnswerMs / 1000} s`;
  const slowLags = receiver.receipts.filter(onlyAt(slowPaths)).map((receipt) => receipt.lagMs);
  return [
    heading(`failing and slow receivers (${shape}; retry ladder ${stack.config.webhooks.retryWaitsSeconds.join(', ')} s)`),
    compared(
      `healthy receivers' lag event→receipt p99 (${healthyPaths.length} of ${paths.length})`,
      percentile(healthyLags, 99),
      'ms',
      { value: percentile(floorLags, 99), name: 'the same receivers when all 20 are healthy' },
      below(1000, 'ms'),
    ),
    alone("  healthy receivers' lag p50", percentile(healthyLags, 50), 'ms', undefined, `(all healthy: ${Math.round(percentile(floorLags, 50))} ms)`),
    alone(`  slow receivers' lag to arrival p99 (they answer ${slowAnswerMs / 1000} s later)`, percentile(slowLags, 99), 'ms'),
    alone(
      '  failing receivers: attempts refused, then recovered',
      refusedAttempts,
      '',
      undefined,
      `(refusing for ${((recovered - published) / 1000).toFixed(1)} s; every event taken ${((lastRecovered - recovered) / 1000).toFixed(1)} s after recovery, once each)`,
    ),
    alone('  deliveries lost / duplicated / unsigned', '0 / 0 / 0', '', undefined, `(${expected(paths).length} checked; any other count fails the bench)`),
  ];
}

function distinct(receipts: Receipt[]): number {
  return new Set(receipts.map((receipt) => receipt.delivery)).size;
}

function covers(receipts: Receipt[], deliveries: string[]): boolean {
  const arrived = new Set(receipts.map((receipt) => receipt.delivery));
  return deliveries.every((delivery) => arrived.has(delivery));
}

/** Polls `done` until it holds; throws naming `what` if it does not within the round's time. */
async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + roundTimeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`receivers: ${what} did not arrive within ${roundTimeoutMs / 1000} s`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 20));
  }
}
