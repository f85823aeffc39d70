import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { buffer } from 'node:stream/consumers';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Post } from '../src/data/entities/post.ts';
import { composeTitleOverlay } from '../src/images/compose-post-image.ts';
import { encodePostVideo, encodeRawFramesArguments, rawFrameArguments, runFfmpeg, videoFrames } from '../src/video/encode-post-video.ts';
import { startBenchStack } from './bench-stack.ts';
import { ms, percentile, timed } from './stats.ts';

// `npm run bench:video`: the time to produce a 1080×1920 post video through the product (start at the dashboard
// endpoint, workflow, activity, ffmpeg, storage, save; polled through GET /video/jobs as a client does), next to,
// in the same run: ffmpeg making the same video from the same inputs alone, and ffmpeg encoding the very same
// frames alone (decoded to raw yuv420p beforehand, so only H.264 encoding is timed).

const runs = 5;
const pollMs = 50;

const stack = await startBenchStack();
const workDir = mkdtempSync(join(tmpdir(), 'bench-video-'));
const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
  const response = await fetch(`${stack.api.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
};

async function videoJobRoundTrip(postId: string): Promise<void> {
  const { jobId } = await api<{ jobId: string }>('POST', `/dashboard/api/posts/${postId}/video`);
  for (;;) {
    const job = await api<{ status: string; error: string | null }>('GET', `/api/v1/video/jobs/${jobId}`);
    if (job.status === 'done') return;
    if (job.status === 'failed' || job.status === 'cancelled') throw new Error(`video job ${job.status}: ${job.error}`);
    await new Promise((resolveWait) => setTimeout(resolveWait, pollMs));
  }
}

try {
  const project = await api<{ id: string }>('POST', '/api/v1/projects', { name: 'Bench' });
  const post = await api<{ id: string }>('POST', '/api/v1/posts', { title: 'Harvest festival', prompt: 'Lanterns over a field at dusk', projectId: project.id });
  await api('POST', `/api/v1/posts/${post.id}/generate`, { format: '9:16' });

  // The same inputs the activity uses: the post's artwork and its title overlay.
  const stored = await stack.api.services.orm.em.fork().findOneOrFail(Post, post.id);
  const artworkPath = join(workDir, 'artwork.png');
  writeFileSync(artworkPath, await buffer((await stack.api.services.storage.get(stored.artworkKey!))!.body));
  const title = (await composeTitleOverlay({ format: '9:16', title: stored.title, colors: {}, fonts: {} }))!;
  const overlay = { path: join(workDir, 'title.png'), top: title.top };
  writeFileSync(overlay.path, title.png);
  const rawPath = join(workDir, 'frames.yuv');
  await runFfmpeg(stack.config.video.ffmpegPath, rawFrameArguments({ artworkPath, overlay, format: '9:16', outputPath: rawPath }));

  const ffmpegPath = stack.config.video.ffmpegPath;
  const makeAlone = () => encodePostVideo({ ffmpegPath, artworkPath, overlay, format: '9:16', outputPath: join(workDir, 'alone.mp4') });
  const encodeAlone = () => runFfmpeg(ffmpegPath, encodeRawFramesArguments('9:16', rawPath, join(workDir, 'encoded.mp4')));

  // Warm up each path once; then alternate them, so that machine noise falls on all three alike.
  await videoJobRoundTrip(post.id);
  await makeAlone();
  await encodeAlone();
  const product: number[] = [];
  const alone: number[] = [];
  const encoding: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    product.push((await timed(() => videoJobRoundTrip(post.id))).ms);
    alone.push((await timed(makeAlone)).ms);
    encoding.push((await timed(encodeAlone)).ms);
  }

  const encode50 = percentile(encoding, 50);
  const line = (label: string, values: number[]) =>
    `  ${label.padEnd(52)} p50 ${ms(percentile(values, 50)).padStart(10)}  p95 ${ms(percentile(values, 95)).padStart(10)}  ${(percentile(values, 50) / encode50).toFixed(2).padStart(5)}×`;
  console.log(`\n1080×1920 post video, ${videoFrames} frames (${runs} runs each, alternating; ratio to encoding alone):`);
  console.log(line('video job: start → done, polled via GET /video/jobs', product));
  console.log(line('ffmpeg making the same video alone (filters + H.264)', alone));
  console.log(line('ffmpeg encoding the same frames alone (raw yuv420p in)', encoding));
  console.log(`\n  raw frames: ${(statSync(rawPath).size / 1024 / 1024).toFixed(0)} MB; video: ${(statSync(join(workDir, 'alone.mp4')).size / 1024).toFixed(0)} KB`);
} finally {
  rmSync(workDir, { recursive: true, force: true });
  await stack.stop();
}
