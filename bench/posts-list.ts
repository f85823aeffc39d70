import pg from 'pg';
import type { ApiAnswer, BenchStack } from './bench-stack.ts';
import { captureStatements, startBarePostsServer, startFixedAnswerServer } from './bare-posts-floor.ts';
import { settings } from './settings.ts';
import { percentile, timed } from './stats.ts';
import { alone, compared, heading, none, ratioAtMost, type Row } from './table.ts';

// GET /posts on a workspace with BENCH_POSTS posts: page 1 next to bare Express + pg sending the very statements the
// service sent for it, by wall time and by CPU per request; pages reached by cursor (what `Link: rel="next"` hands
// out), the last page by number and a status filter next to page 1. Requests are measured in turns, so machine noise
// falls on all of them alike. Every page measured, and a walk by cursor from page 1, is checked against the rows in
// the database. Each run seeds a workspace of its own, so `--runs` measures the same list every time.

const pageSize = 20;
const warmUpRounds = 100;
const walkedPages = 10;
/**
 * GET /posts page 1 may cost the server at most this many times its floor's CPU per request. The service does in code
 * what the floor does not: routing, OpenAPI validation, authentication, three rate-limit budgets counted in
 * PostgreSQL, the ORM, presenting, and the request log line at `info`, written as production writes it. Together
 * they come to between two and three times the floor's CPU; the ceiling is a guard against a change that adds
 * about half a millisecond more to every request.
 */
const cpuCeiling = 3;

type ListAnswer = Array<{ id: string }>;

export async function benchPostsList(stack: BenchStack): Promise<Row[]> {
  const { workspaceId, call } = await stack.newWorkspace('Posts');
  const { body: project } = await call<{ id: string }>('POST', '/projects', { name: 'Posts' });
  const databaseUrl = stack.config.database.url;
  await seed(databaseUrl, workspaceId, project.id, settings.posts);

  const firstPage = `/posts?pageSize=${pageSize}`;
  const lastPage = Math.ceil(settings.posts / pageSize);
  const cursorAfter = async (page: number) => {
    const path = nextLink((await call('GET', `/posts?pageSize=${pageSize}&page=${page}`)).headers);
    if (!path) throw new Error(`no next link on page ${page}`);
    return path;
  };
  const middlePage = Math.floor(lastPage / 2) + 1;
  const middleByCursor = await cursorAfter(middlePage - 1);
  const lastByCursor = await cursorAfter(lastPage - 1);
  for (let index = 0; index < 3; index += 1) await call('GET', firstPage);
  const statements = await captureStatements(() => call('GET', firstPage));
  const bare = await startBarePostsServer(databaseUrl, statements);
  const fixed = await startFixedAnswerServer(JSON.stringify((await call('GET', firstPage)).body));
  try {
    const paths = {
      first: firstPage,
      middle: middleByCursor,
      last: lastByCursor,
      lastByNumber: `/posts?pageSize=${pageSize}&page=${lastPage}`,
      failed: `/posts?pageSize=${pageSize}&status=failed`,
    };
    // Each answer is read and parsed alike (the API's caller parses JSON too).
    const cases: Record<string, () => Promise<unknown>> = {
      bare: async () => JSON.parse(await (await fetch(`${bare.url}/posts`)).text()) as unknown,
      fixed: async () => JSON.parse(await (await fetch(fixed.url)).text()) as unknown,
      ...Object.fromEntries(Object.entries(paths).map(([name, path]) => [name, () => call('GET', path)])),
    };
    const runs = new Map(Object.keys(cases).map((name) => [name, [] as number[]]));
    // CPU of this process's main thread around each measured call, in microseconds: the server's, and the caller's
    // (fetch and parse) and Node's HTTP, which a fixed answer of page 1's bytes measures alone and the figures leave
    // out. The main thread alone: the process's other threads (the worker's, the SDK's, the renders') run on their
    // own clock, and counted here they would charge whichever request was in flight, longer ones more.
    const cpu = new Map(Object.keys(cases).map((name) => [name, 0]));
    // Warm first, as a server in service is: V8 optimises a function only after many calls, and with one call of each
    // both servers would be measured partly unoptimised. The deep page by number reads every index entry before its
    // own, so it is warmed only a few times.
    for (let round = 0; round < warmUpRounds; round += 1) {
      for (const [name, request] of Object.entries(cases)) if (name !== 'lastByNumber' || round < 3) await request();
    }
    for (let sample = 0; sample < settings.samples; sample += 1) {
      for (const [name, request] of Object.entries(cases)) {
        const before = process.threadCpuUsage();
        runs.get(name)!.push((await timed(request)).ms);
        const spent = process.threadCpuUsage(before);
        cpu.set(name, cpu.get(name)! + spent.user + spent.system);
      }
    }
    const p50 = (name: string) => percentile(runs.get(name)!, 50);
    const cpuPerRequest = (name: string) => cpu.get(name)! / settings.samples / 1000;
    const serverCpu = (name: string) => cpuPerRequest(name) - cpuPerRequest('fixed');
    const pageOne = { value: p50('first'), name: 'GET /posts page 1' };
    const posts = settings.posts.toLocaleString('en');
    const floorName = `bare Express + pg, same ${statements.length} statements`;

    const expected = expectedPages(databaseUrl, workspaceId);
    const problems = [
      ...(await checkPage(call, 'page 1', paths.first, await expected(0), true)),
      ...(await checkPage(call, `page ${middlePage} by cursor`, paths.middle, await expected((middlePage - 1) * pageSize), middlePage < lastPage)),
      ...(await checkPage(call, `page ${lastPage} by cursor`, paths.last, await expected((lastPage - 1) * pageSize), false)),
      ...(await checkPage(call, `page ${lastPage} by number`, paths.lastByNumber, await expected((lastPage - 1) * pageSize), false)),
      ...(await checkPage(call, 'status=failed page 1', paths.failed, await expected(0, 'failed'), Math.floor(settings.posts / 100) > pageSize)),
      ...(await checkWalk(call, firstPage, expected, Math.min(walkedPages, lastPage))),
    ];
    return [
      heading(`GET /posts, ${posts} posts, pages of ${pageSize}, p50`),
      compared('GET /posts page 1', p50('first'), 'ms', { value: p50('bare'), name: floorName }, ratioAtMost(1.43, ' (≥ 0.7 of its speed)')),
      compared('GET /posts page 1, server CPU per request', serverCpu('first'), 'ms', { value: serverCpu('bare'), name: floorName }, ratioAtMost(cpuCeiling)),
      alone('  left out of both: the caller and HTTP, a fixed answer of the same bytes', cpuPerRequest('fixed'), 'ms'),
      compared(`GET /posts page ${middlePage} by cursor`, p50('middle'), 'ms', pageOne, ratioAtMost(1.5)),
      compared(`GET /posts page ${lastPage} by cursor`, p50('last'), 'ms', pageOne, ratioAtMost(1.5)),
      compared(`GET /posts page ${lastPage} by number`, p50('lastByNumber'), 'ms', pageOne),
      compared('GET /posts?status=failed page 1', p50('failed'), 'ms', pageOne),
      alone(
        `GET /posts pages against the rows (5 pages measured, ${Math.min(walkedPages, lastPage)} walked by cursor): wrong`,
        problems.length,
        '',
        none(),
        problems.length > 0 ? `(${problems.slice(0, 3).join('; ')})` : '',
      ),
    ];
  } finally {
    await fixed.stop();
    await bare.stop();
  }
}

type Caller = BenchStack['call'];
type Expected = (offset: number, status?: string) => Promise<string[]>;

function nextLink(headers: Headers): string | undefined {
  return /<\/api\/v1([^>]+)>; rel="next"/.exec(headers.get('link') ?? '')?.[1];
}

/** The ids a page should hold, read from the rows in the order GET /posts promises (newest first, then by id). */
function expectedPages(databaseUrl: string, workspaceId: string): Expected {
  return async (offset, status) => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ id: string }>(
        `select id from posts where workspace_id = $1 and ($2::text is null or status = $2)
          order by created_at desc, id desc limit $3 offset $4`,
        [workspaceId, status ?? null, pageSize, offset],
      );
      return rows.map((row) => row.id);
    } finally {
      await client.end();
    }
  };
}

/** What is wrong with one page: other posts than the rows at its place, or a next link where none belongs (or none). */
async function checkPage(call: Caller, name: string, path: string, expected: string[], hasNext: boolean): Promise<string[]> {
  const answer = await call<ListAnswer>('GET', path);
  const ids = answer.body.map((item) => item.id);
  const problems: string[] = [];
  if (ids.join() !== expected.join())
    problems.push(`${name}: ${ids.length} posts, ${ids.filter((id, index) => id !== expected[index]).length} not the rows expected there`);
  if (Boolean(nextLink(answer.headers)) !== hasNext) problems.push(`${name}: ${hasNext ? 'no' : 'a'} next link`);
  return problems;
}

/** Pages followed by their next links from page 1: each must hold the rows at its place, none lost or repeated. */
async function checkWalk(call: Caller, firstPage: string, expected: Expected, pages: number): Promise<string[]> {
  const problems: string[] = [];
  let path: string | undefined = firstPage;
  for (let page = 1; page <= pages && path; page += 1) {
    const answer: ApiAnswer<ListAnswer> = await call<ListAnswer>('GET', path);
    if (answer.body.map((item) => item.id).join() !== (await expected((page - 1) * pageSize)).join())
      problems.push(`page ${page} walked by cursor: not the rows expected`);
    path = nextLink(answer.headers);
  }
  return problems;
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
