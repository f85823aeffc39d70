import pg from 'pg';
import { startBenchStack } from './bench-stack.ts';
import { ms, percentile, timed } from './stats.ts';

// `npm run bench:posts`: GET /posts on a workspace with a million posts: the first page, deep pages by number,
// the same depth by cursor (what `Link: rel="next"` hands out), and a status filter, next to GET /projects (a
// small list through the same stack) measured in the same run.

const totalPosts = Number(process.env.BENCH_POSTS ?? 1_000_000);
const samples = 20;

const stack = await startBenchStack();
const headers = { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' };
const get = async (path: string) => {
  const response = await fetch(`${stack.api.url}/api/v1${path}`, { headers });
  if (!response.ok) throw new Error(`GET ${path} answered ${response.status}`);
  await response.arrayBuffer();
  return response;
};

try {
  const project = (await (await fetch(`${stack.api.url}/api/v1/projects`, { method: 'POST', headers, body: JSON.stringify({ name: 'Bench' }) })).json()) as { id: string };
  const seeding = await timed(() => seed(stack.config.database.url, stack.workspaceId, project.id, totalPosts));
  console.log(`\nSeeded ${totalPosts.toLocaleString('en')} posts in ${(seeding.ms / 1000).toFixed(1)} s.`);

  const lastPage = Math.ceil(totalPosts / 20);
  const deep = await get(`/posts?pageSize=20&page=${lastPage - 1}`);
  const cursorPath = /<\/api\/v1([^>]+)>; rel="next"/.exec(deep.headers.get('link') ?? '')?.[1];
  if (!cursorPath) throw new Error('no next link on the deep page');

  const cases: Array<[string, string]> = [
    ['GET /projects (baseline)', '/projects'],
    ['GET /posts page 1', '/posts?pageSize=20'],
    ['GET /posts page 100', '/posts?pageSize=20&page=100'],
    [`GET /posts page ${(lastPage / 2).toLocaleString('en')} (middle)`, `/posts?pageSize=20&page=${lastPage / 2}`],
    [`GET /posts page ${lastPage.toLocaleString('en')} (last)`, `/posts?pageSize=20&page=${lastPage}`],
    ['GET /posts last page by cursor', cursorPath],
    ['GET /posts?status=failed page 1', '/posts?pageSize=20&status=failed'],
  ];
  for (const [, path] of cases) await get(path);
  console.log(`\n${'request'.padEnd(36)}      p50        p95   p50 / baseline`);
  let baseline = 0;
  for (const [name, path] of cases) {
    const runs: number[] = [];
    for (let index = 0; index < samples; index += 1) runs.push((await timed(() => get(path))).ms);
    const p50 = percentile(runs, 50);
    baseline ||= p50;
    console.log(`${name.padEnd(36)} ${ms(p50).padStart(9)}  ${ms(percentile(runs, 95)).padStart(9)}  ${(p50 / baseline).toFixed(2).padStart(14)}`);
  }
} finally {
  await stack.stop();
}

/** A million rows in one statement; one in a hundred is failed, a few have an image. */
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
