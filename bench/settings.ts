// How much each benchmark does, from the environment; the defaults keep a full `npm run bench` near ten minutes on
// a 2-core machine.
function count(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive whole number, got "${process.env[name]}"`);
  return value;
}

export const settings = {
  /** Sequential samples behind every p50 (60 rather than 30 narrows a p50's sampling error; the generate and posts
   * sections take 5–10 s more each). */
  samples: count('BENCH_SAMPLES', 60),
  /** Floor workflows per throughput measurement (8 at a time). */
  workflows: count('BENCH_WORKFLOWS', 160),
  /** Generate requests per concurrency step (times the concurrency; at least 3, for a steady-state rate). */
  generatePerSlot: count('BENCH_GENERATE_PER_SLOT', 6),
  /** Published posts, once without webhooks and once with BENCH_WEBHOOKS each. */
  events: count('BENCH_EVENTS', 60),
  webhooks: count('BENCH_WEBHOOKS', 20),
  /** Posts scheduled for the same second in the burst section. */
  burst: count('BENCH_BURST', 1000),
  /** Rounds of the rates measured in turns with their floors (publish-only and with webhooks; renders alone and
   * generate at concurrency 16; Temporal's schedule creates and POST /schedules); the table shows medians. Five
   * rather than three: within one run a round's rate moved by up to a third with this shared machine's spells, and
   * the median of five moves less (a full run takes about seven minutes). */
  rounds: count('BENCH_ROUNDS', 5),
  schedules: count('BENCH_SCHEDULES', 1000),
  /** Rows in the posts table for GET /posts. */
  posts: count('BENCH_POSTS', 1_000_000),
  videoRuns: count('BENCH_VIDEO_RUNS', 3),
  /** The size of the video the `upload` section uploads (decimal MB), and its rounds of each upload. */
  uploadMegabytes: count('BENCH_UPLOAD_MB', 200),
  uploadRounds: count('BENCH_UPLOAD_ROUNDS', 3),
  /** Seconds of generate at concurrency 16 in the memory section (its check compares the last third with the second). */
  memorySeconds: count('BENCH_MEMORY_SECONDS', 180),
  /** Posts published to one Bluesky connection on the reference PDS. */
  blueskyPosts: count('BENCH_BLUESKY_POSTS', 100),
};
