import { startBenchStack } from './bench-stack.ts';
import { ms, percentile, runConcurrently, timed } from './stats.ts';

// `npm run bench:schedules`: creates N schedules (default 1,000) through the API, each with its Temporal Schedule,
// and prints the create rate; then GET /schedules (a page of 50, nextRunAt read from Temporal's visibility) next to
// GET /projects (a page from the database alone) in the same run.

const total = Number(process.env.BENCH_SCHEDULES ?? 1000);
const samples = 30;
const stack = await startBenchStack();
const headers = { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' };
const call = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${stack.api.url}/api/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
  await response.arrayBuffer();
};

try {
  for (let index = 0; index < 50; index += 1) await call('POST', '/projects', { name: `Project ${index}` });
  const started = performance.now();
  const creates = await runConcurrently(total, 8, (index) =>
    // Once a year on 1 January, so no run fires (and competes for the machine) while we measure.
    call('POST', '/schedules', { name: `Schedule ${index}`, cronExpression: `${index % 60} ${index % 24} 1 1 *`, promptTemplate: 'News of {{date}}' }),
  );
  const seconds = (performance.now() - started) / 1000;
  console.log(`\nCreated ${total} schedules (8 at a time) in ${seconds.toFixed(1)} s → ${(total / seconds).toFixed(1)} per second`);
  console.log(`  POST /schedules  p50 ${ms(percentile(creates, 50))}  p95 ${ms(percentile(creates, 95))}`);

  const measure = async (path: string) => {
    await call('GET', path);
    const runs: number[] = [];
    for (let index = 0; index < samples; index += 1) runs.push((await timed(() => call('GET', path))).ms);
    return runs;
  };
  const projects = await measure('/projects?pageSize=50');
  const schedules = await measure('/schedules?pageSize=50');
  const deep = await measure(`/schedules?pageSize=50&page=${Math.floor(total / 50)}`);
  const baseline = percentile(projects, 50);
  console.log(`\n${'request (page of 50)'.padEnd(34)}      p50        p95   p50 / baseline`);
  for (const [name, runs] of [['GET /projects (baseline)', projects], ['GET /schedules page 1', schedules], [`GET /schedules page ${Math.floor(total / 50)}`, deep]] as const) {
    console.log(`${name.padEnd(34)} ${ms(percentile(runs, 50)).padStart(9)}  ${ms(percentile(runs, 95)).padStart(9)}  ${(percentile(runs, 50) / baseline).toFixed(2).padStart(14)}`);
  }
} finally {
  await stack.stop();
}
