import { cpus, loadavg } from 'node:os';
import { startBenchStack } from './bench-stack.ts';
import { benchBlueskyPublishing } from './bluesky-publishing.ts';
import { benchBurst } from './burst.ts';
import { benchCosts } from './operation-costs.ts';
import { benchFailingReceivers } from './failing-receivers.ts';
import { benchGenerate } from './generate-latency.ts';
import { benchMemory } from './memory.ts';
import { benchPostsList } from './posts-list.ts';
import { benchRateLimits } from './rate-limits.ts';
import { benchSchedules } from './schedules.ts';
import { printTable, type Row } from './table.ts';
import { benchVideo } from './video.ts';
import { benchWebhooks } from './webhook-throughput.ts';

// `npm run bench [-- section ...]`: every benchmark (or the sections named) on ONE stack, then one table. The order
// matters: Temporal-heavy sections run before the schedules (a thousand Temporal Schedules) and the posts section
// (a million rows) change the stack they would measure.

const sections = {
  cost: benchCosts,
  generate: benchGenerate,
  video: benchVideo,
  webhooks: benchWebhooks,
  receivers: benchFailingReceivers,
  burst: benchBurst,
  bluesky: benchBlueskyPublishing,
  memory: benchMemory,
  limits: benchRateLimits,
  schedules: benchSchedules,
  posts: benchPostsList,
};

// V8's memory reducer shrinks an isolate's heap, with extra full collections, once the isolate stops allocating. The
// service's main thread stops for as long as each floor's round runs, and the figure's round after it paid in
// garbage collection to grow the heap back. A service under load does not idle like that, so the bench's scripts
// start Node with `--no-memory-reducer`: without it a run would measure its own turn-taking.
if (!process.execArgv.includes('--no-memory-reducer')) {
  throw new Error('run the benchmarks through `npm run bench` (its scripts start Node with --no-memory-reducer, see bench/main.ts)');
}

const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !(name in sections));
if (unknown.length > 0) throw new Error(`unknown section(s) ${unknown.join(', ')}; choose from ${Object.keys(sections).join(', ')}`);
const chosen = Object.entries(sections).filter(([name]) => asked.length === 0 || asked.includes(name));

const started = performance.now();
const loadBefore = loadavg();
const stack = await startBenchStack();
const rows: Row[] = [];
try {
  for (const [name, section] of chosen) {
    const sectionStarted = performance.now();
    console.error(`bench: ${name}…`);
    rows.push(...(await section(stack)));
    console.error(`bench: ${name} took ${seconds(sectionStarted)} s`);
  }
} finally {
  await stack.stop();
  // What was measured before a failure is still worth seeing.
  console.log('');
  printTable(rows);
  console.log(
    `\nratio = figure ÷ floor, in the figure's unit (ms: lower is better; /s: higher is better). ${seconds(started)} s on ${cpus().length} cores; ` +
      `load average (1, 5, 15 min) ${loads(loadBefore)} before, ${loads(loadavg())} after.`,
  );
}

function seconds(since: number): string {
  return ((performance.now() - since) / 1000).toFixed(0);
}

function loads(values: number[]): string {
  return values.map((load) => load.toFixed(1)).join(' ');
}
