import { randomUUID } from 'node:crypto';
import type { Schemas } from '../src/api/schemas.ts';
import type { BenchStack } from './bench-stack.ts';
import { startBenchPds } from './bench-pds.ts';
import { settings } from './settings.ts';
import { percentile, runConcurrently, timed } from './stats.ts';
import { alone, atLeast, atMost, compared, heading, type Row } from './table.ts';

// publish-social of BENCH_BLUESKY_POSTS posts (100) to ONE Bluesky connection on the reference atproto PDS
// (@atproto/dev-env, behind an HTTPS proxy that counts calls), 10 at a time: Bluesky allows an account 30
// createSession calls in five minutes, so all of them must go out on the one session the connection was created
// with. Floor: the same number of createRecord calls sent to the PDS directly on one session, as many at a time.
// Both are warmed up first, then measured in BENCH_ROUNDS turns (the table shows the medians), as the other sections'
// rates are.

const concurrency = 10;
/** Posts (and createRecord calls) sent before the measured rounds, not counted: one of each per slot. */
const warmUps = concurrency;
const fiveMinutesMs = 5 * 60_000;

export async function benchBlueskyPublishing(stack: BenchStack): Promise<Row[]> {
  const pds = await startBenchPds();
  try {
    const total = settings.blueskyPosts;
    const account = await pds.createAccount('bench.test');
    const { body: connection } = await stack.call<{ id: string }>('POST', '/social-connections', {
      platform: 'bluesky',
      serviceUrl: pds.url,
      handle: account.handle,
      appPassword: account.appPassword,
    });
    const { body: project } = await stack.call<{ id: string }>('POST', '/projects', { name: 'Bluesky bench' });
    const postIds: string[] = [];
    for (let index = 0; index < warmUps + total; index += 1) {
      postIds.push(
        (
          await stack.call<{ id: string }>('POST', '/posts', {
            title: `Tip ${index + 1} of the day #tips https://example.com/${index}`,
            prompt: 'tips',
            projectId: project.id,
          })
        ).body.id,
      );
    }

    const floorSession = (await (
      await pds.procedure('com.atproto.server.createSession', '', { identifier: account.handle, password: account.password })
    ).json()) as { accessJwt: string };
    const createRecords = (count: number) =>
      runConcurrently(count, concurrency, async () => {
        const record = { $type: 'app.bsky.feed.post', text: `Floor ${randomUUID()}`, createdAt: new Date().toISOString() };
        const answer = await pds.procedure('com.atproto.repo.createRecord', floorSession.accessJwt, {
          repo: account.did,
          collection: 'app.bsky.feed.post',
          record,
        });
        if (!answer.ok) throw new Error(`the floor's createRecord answered ${answer.status}`);
      });
    const statuses: string[] = [];
    const publishSocial = (ids: string[]) =>
      runConcurrently(ids.length, concurrency, async (index) => {
        const { body } = await stack.call<Schemas['PublishTarget'][]>('POST', `/posts/${ids[index]}/publish-social`, { connectionIds: [connection.id] });
        statuses.push(body[0]?.status ?? 'none');
      });

    // Warm-up (JIT, connection pools, the PDS's own caches) on both sides, not counted; then the floor and the figure
    // take turns, a round of each at a time, so this shared machine's slow and fast spells fall on both alike.
    await createRecords(warmUps);
    await publishSocial(postIds.splice(0, warmUps));
    statuses.length = 0;
    const rounds = Math.min(settings.rounds, total);
    const rates = { floor: [] as number[], published: [] as number[] };
    let publishingMs = 0;
    for (let round = 0; round < rounds; round += 1) {
      const ids = postIds.splice(0, Math.ceil(postIds.length / (rounds - round)));
      const floor = await timed(() => createRecords(ids.length));
      rates.floor.push(ids.length / (floor.ms / 1000));
      const published = await timed(() => publishSocial(ids));
      rates.published.push(ids.length / (published.ms / 1000));
      publishingMs += published.ms;
    }
    const publishedCount = statuses.filter((status) => status === 'Published').length;
    const median = (values: number[]) => percentile(values, 50);
    return [
      heading(`bluesky (after ${warmUps} of each; floor and figure in turns: median of ${rounds} rounds)`),
      compared(`publish-social to one Bluesky connection, ${concurrency} at a time`, median(rates.published), '/s', {
        value: median(rates.floor),
        name: `createRecord on the PDS alone, ${concurrency} at a time`,
      }),
      alone(
        '  each round',
        rates.published.map((rate) => rate.toFixed(1)).join(' / '),
        '',
        undefined,
        `(createRecord alone ${rates.floor.map((rate) => rate.toFixed(1)).join(' / ')})`,
      ),
      alone(`${total} Bluesky posts published`, publishingMs / 1000, '', atMost(fiveMinutesMs / 1000, ''), 's'),
      alone('Bluesky targets Published', publishedCount, '', atLeast(total, '')),
      alone('Bluesky sessions created (createSession)', pds.count('com.atproto.server.createSession'), '', atMost(1, ''), '(the connection check included)'),
      alone('Bluesky sessions refreshed (refreshSession)', pds.count('com.atproto.server.refreshSession'), ''),
    ];
  } finally {
    await pds.close();
  }
}
