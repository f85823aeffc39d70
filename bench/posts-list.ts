import pg from 'pg';
import type { BenchStack } from './bench-stack.ts';
import { captureStatements, startBarePostsServer } from './bare-posts-floor.ts';
import { settings } from './settings.ts';
import { percentile, timed } from './stats.ts';
import { compared, heading, ratioAtMost, type Row } from './table.ts';

// GET /posts on a workspace with BENCH_POSTS posts: page 1 next to bare Express + pg sending the very statements the
// service sent for it; pages reached by cursor (what `Link: rel="next"` hands out), the last page by number and a
// status filter next to page 1. Requests are measured in turns, so machine noise falls on all of them alike.

const pageSize = 20;
const warmUpRounds = 100;

export async function benchPostsList(stack: BenchStack): Promise<Row[]> {
  const { body: project } = await stack.call<{ id: string }>('POST', '/projects', { name: 'Posts' });
  await seed(stack.config.database.url, stack.workspaceId, project.id, settings.posts);

  const firstPage = `/posts?pageSize=${pageSize}`;
  const lastPage = Math.ceil(settings.posts / pageSize);
  const cursorAfter = async (page: number) => {
    const link = (await stack.call('GET', `/posts?pageSize=${pageSize}&page=${page}`)).headers.get('link') ?? '';
    const path = /<\/api\/v1([^>]+)>; rel="next"/.exec(link)?.[1];
    if (!path) throw new Error(`no next link on page ${page}`);
    return path;
  };
  const middleByCursor = await cursorAfter(Math.floor(lastPage / 2));
  const lastByCursor = await cursorAfter(lastPage - 1);
  for (let index = 0; index < 3; index += 1) await stack.call('GET', firstPage);
  const statements = await captureStatements(() => stack.call('GET', firstPage));
  const bare = await startBarePostsServer(stack.config.database.url, statements);
  try {
    // Each answer is read and parsed alike (stack.call parses JSON too).
    const cases: Record<string, () => Promise<unknown>> = {
      bare: async () => JSON.parse(await (await fetch(`${bare.url}/posts`)).text()) as unknown,
      first: () => stack.call('GET', firstPage),
      middle: () => stack.call('GET', middleByCursor),
      last: () => stack.call('GET', lastByCursor),
      lastByNumber: () => stack.call('GET', `/posts?pageSize=${pageSize}&page=${lastPage}`),
      failed: () => stack.call('GET', `/posts?pageSize=${pageSize}&status=failed`),
    };
    const runs = new Map(Object.keys(cases).map((name) => [name, [] as number[]]));
    // Warm first, as a server in service is: V8 optimises a function only after many calls, and with one call of each
    // both servers would be measured partly unoptimised. The deep page by number reads every index entry before its
    // own, so it is warmed only a few times.
    for (let round = 0; round < warmUpRounds; round += 1) {
      for (const [name, request] of Object.entries(cases)) if (name !== 'lastByNumber' || round < 3) await request();
    }
    for (let sample = 0; sample < settings.samples; sample += 1) {
      for (const [name, request] of Object.entries(cases)) runs.get(name)!.push((await timed(request)).ms);
    }
    const p50 = (name: string) => percentile(runs.get(name)!, 50);
    const pageOne = { value: p50('first'), name: 'GET /posts page 1' };
    const posts = settings.posts.toLocaleString('en');
    return [
      heading(`GET /posts, ${posts} posts, pages of ${pageSize}, p50`),
      compared(
        'GET /posts page 1',
        p50('first'),
        'ms',
        { value: p50('bare'), name: `bare Express + pg, same ${statements.length} statements` },
        ratioAtMost(1.43, ' (≥ 0.7 of its speed)'),
      ),
      compared(`GET /posts page ${Math.floor(lastPage / 2) + 1} by cursor`, p50('middle'), 'ms', pageOne, ratioAtMost(1.5)),
      compared(`GET /posts page ${lastPage} by cursor`, p50('last'), 'ms', pageOne, ratioAtMost(1.5)),
      compared(`GET /posts page ${lastPage} by number`, p50('lastByNumber'), 'ms', pageOne),
      compared('GET /posts?status=failed page 1', p50('failed'), 'ms', pageOne),
    ];
  } finally {
    await bare.stop();
  }
}

/** All rows in one statement; one in a hundred is failed. */
async function seed(databaseUrl: string, workspaceId: string, projectId: string, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `insert into posts (id, workspace_id, project_id, title, prompt, status, format, has_video, created_at, updated_at)
       select gen_random_uuid(), $1, $2, 'Post ' || n, 'Prompt ' || n,
              case when n % 100 = 0 then 'failed' else 'draft' end, '1:1', false,
              now() - (n || ' milliseconds')::interval, now()
         from generate_series(1, $3) as n`,
      [workspaceId, projectId, count],
    );
    await client.query('analyze posts');
  } finally {
    await client.end();
  }
}
