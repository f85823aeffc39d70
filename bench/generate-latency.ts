import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { createLocalImageProvider } from '../src/generation/local-provider.ts';
import { startBenchStack } from './bench-stack.ts';
import { ms, percentile, runConcurrently, timed } from './stats.ts';

// `npm run bench:generate`: round-trip latency of POST /posts/{id}/generate with the local image provider, at a
// few concurrencies, next to its floor measured in the same run: an empty workflow round trip on the same Temporal
// server plus the local image generation alone. The ratio says what the pipeline (HTTP, database, storage,
// two activities) costs on top of the parts it cannot avoid.

const concurrencies = [1, 4, 16];
const requestsPer = (concurrency: number) => Math.max(24, concurrency * 6);

const stack = await startBenchStack();
const floorQueue = `${stack.config.temporal.taskQueue}-floor`;
const nativeConnection = await NativeConnection.connect({ address: stack.temporalAddress });
const floorWorker = await Worker.create({
  connection: nativeConnection,
  taskQueue: floorQueue,
  workflowsPath: fileURLToPath(new URL('./empty-workflow.ts', import.meta.url)),
});
const floorRunning = floorWorker.run();
const client = new Client({ connection: await Connection.connect({ address: stack.temporalAddress }) });
const api = (path: string, body?: unknown) =>
  fetch(`${stack.api.url}/api/v1${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then(async (response) => ({ status: response.status, body: (await response.json()) as { id: string } }));

try {
  const { body: project } = await api('/projects', { name: 'Bench' });
  const total = concurrencies.reduce((sum, concurrency) => sum + requestsPer(concurrency), 0) + 5;
  const postIds: string[] = [];
  for (let index = 0; index < total; index += 1) {
    postIds.push((await api('/posts', { title: `Bench post ${index}`, prompt: `A calm sea at dusk, take ${index}`, projectId: project.id })).body.id);
  }
  let nextPost = 0;
  const generate = async () => {
    const response = await api(`/posts/${postIds[nextPost++]}/generate`, { format: '1:1' });
    if (response.status !== 200) throw new Error(`generate answered ${response.status}`);
  };

  // Warm up every path once (JIT, connection pools, bundle caches).
  for (let index = 0; index < 5; index += 1) await generate();
  for (let index = 0; index < 5; index += 1) await client.workflow.execute('emptyWorkflow', { taskQueue: floorQueue, workflowId: `floor-warm-${index}` });

  const emptyRuns = await runConcurrently(50, 1, (index) => client.workflow.execute('emptyWorkflow', { taskQueue: floorQueue, workflowId: `floor-${index}` }));
  const provider = createLocalImageProvider();
  const imageRuns: number[] = [];
  for (let index = 0; index < 30; index += 1) {
    imageRuns.push((await timed(() => provider.generate({ prompt: `A calm sea at dusk, floor ${index}`, format: '1:1', seed: index, colors: {} }))).ms);
  }
  const floor = percentile(emptyRuns, 50) + percentile(imageRuns, 50);

  console.log('\nFloor (sequential, same run):');
  console.log(`  empty workflow round trip   p50 ${ms(percentile(emptyRuns, 50))}  p95 ${ms(percentile(emptyRuns, 95))}`);
  console.log(`  local image 1080×1080 alone p50 ${ms(percentile(imageRuns, 50))}  p95 ${ms(percentile(imageRuns, 95))}`);
  console.log(`  floor (sum of p50s)         ${ms(floor)}`);
  console.log('\nPOST /posts/{id}/generate round trip (local provider, 1:1):');
  console.log('  concurrency  requests       p50        p95   per second   p50 / floor');
  for (const concurrency of concurrencies) {
    const started = performance.now();
    const runs = await runConcurrently(requestsPer(concurrency), concurrency, generate);
    const seconds = (performance.now() - started) / 1000;
    const p50 = percentile(runs, 50);
    console.log(
      `  ${String(concurrency).padStart(11)}  ${String(runs.length).padStart(8)}  ${ms(p50).padStart(9)}  ${ms(percentile(runs, 95)).padStart(9)}  ${(runs.length / seconds).toFixed(1).padStart(11)}  ${(p50 / floor).toFixed(2).padStart(12)}`,
    );
  }
  console.log('\n(2-core machine; at concurrency > 2 requests queue for the CPU, so p50 grows with concurrency.)');
} finally {
  floorWorker.shutdown();
  await floorRunning;
  await nativeConnection.close();
  await client.connection.close();
  await stack.stop();
}
