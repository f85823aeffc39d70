import { cpus, loadavg } from 'node:os';
import { startBenchStack } from './bench-stack.ts';
import { reportExitStatus } from './exit-status.ts';
import { benchBlueskyPublishing } from './bluesky-publishing.ts';
import { benchBurst } from './burst.ts';
import { benchCosts } from './operation-costs.ts';
import { benchFailingReceivers } from './failing-receivers.ts';
import { benchGenerate } from './generate-latency.ts';
import { benchMemory } from './memory.ts';
import { benchOpenAIImages } from './openai-images.ts';
import { benchPostsList } from './posts-list.ts';
import { benchRateLimits } from './rate-limits.ts';
import { benchArguments, runSections, summarizeRuns } from './runs.ts';
import { benchSchedules } from './schedules.ts';
import { printTable, type Row } from './table.ts';
import { benchVideo } from './video.ts';
import { benchVideoUpload } from './video-upload.ts';
import { benchWebhooks } from './webhook-throughput.ts';
import { benchMcp } from './mcp.ts';

// `npm run bench [-- [--runs N] section ...]`: every benchmark (or the sections named) on ONE stack, then one table;
// with `--runs N`, the chosen sections N times over and each figure's median and spread (bench/runs.ts). The exit
// status says whether every check held and every target was met (bench/exit-status.ts). The order matters:
// Temporal-heavy sections run before the schedules (a thousand Temporal Schedules) and the posts section (a million
// rows) change the stack they would measure.

const sections = {
  cost: benchCosts,
  generate: benchGenerate,
  openai: benchOpenAIImages,
  video: benchVideo,
  upload: benchVideoUpload,
  webhooks: benchWebhooks,
  receivers: benchFailingReceivers,
  burst: benchBurst,
  bluesky: benchBlueskyPublishing,
  memory: benchMemory,
  limits: benchRateLimits,
  schedules: benchSchedules,
  posts: benchPostsList,
  mcp: benchMcp,
};

const { runs, sections: asked } = benchArguments(process.argv.slice(2));
const unknown = asked.filter((name) => !(name in sections));
if (unknown.length > 0) throw new Error(`unknown section(s) ${unknown.join(', ')}; choose from ${Object.keys(sections).join(', ')}`);
const chosen = Object.entries(sections).filter(([name]) => asked.length === 0 || asked.includes(name));

const started = performance.now();
const loadBefore = loadavg();
const stack = await startBenchStack();
console.log(
  [...stack.described, ...(runs > 1 ? [`${runs} runs of: ${chosen.map(([name]) => name).join(', ')}; each figure: median (min–max)`] : [])].join('\n'),
);
const perRun: Row[][] = [];
try {
  await runSections(chosen, stack, runs, perRun);
} finally {
  await stack.stop();
  // What was measured before a failure is still worth seeing.
  const rows = summarizeRuns(perRun);
  console.log('');
  printTable(rows);
  console.log(
    `\nratio = figure ÷ floor, in the figure's unit (ms: lower is better; /s: higher is better). ${seconds(started)} s on ${cpus().length} cores; ` +
      `load average (1, 5, 15 min) ${loads(loadBefore)} before, ${loads(loadavg())} after.`,
  );
  process.exitCode = reportExitStatus(rows);
}

function seconds(since: number): string {
  return ((performance.now() - since) / 1000).toFixed(0);
}

function loads(values: number[]): string {
  return values.map((load) => load.toFixed(1)).join(' ');
}
