import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { buffer } from 'node:stream/consumers';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Post } from '../src/adapters/database/entities/post.ts';
import { composeTitleOverlay } from '../src/adapters/artwork/compose-post-image.ts';
import { encodePostVideo } from '../src/adapters/video-encoding/encode-post-video.ts';
import type { BenchStack } from './bench-stack.ts';
import { settings } from './settings.ts';
import { percentile, timed } from './stats.ts';
import { compared, heading, type Row } from './table.ts';

// A 1080×1920 post video through the product (started at the dashboard endpoint, polled through GET /video/jobs as
// a client does) next to ffmpeg alone running the activity's own command line on the same inputs. Runs alternate,
// so machine noise falls on both alike.

const pollMs = 50;

export async function benchVideo(stack: BenchStack): Promise<Row[]> {
  const workDir = mkdtempSync(join(tmpdir(), 'bench-video-'));
  try {
    const { body: project } = await stack.call<{ id: string }>('POST', '/projects', { name: 'Video' });
    const { body: post } = await stack.call<{ id: string }>('POST', '/posts', {
      title: 'Harvest festival',
      prompt: 'Lanterns over a field at dusk',
      projectId: project.id,
    });
    await stack.call('POST', `/posts/${post.id}/generate`, { format: '9:16' });

    // The inputs the activity gives ffmpeg: the post's artwork and its title overlay.
    const stored = await stack.api.services.orm.em.fork().findOneOrFail(Post, post.id);
    const artworkPath = join(workDir, 'artwork');
    writeFileSync(artworkPath, await buffer((await stack.api.services.storage.get(stored.artworkKey!))!.body));
    const title = (await composeTitleOverlay({ format: '9:16', title: stored.title, colors: {}, fonts: {} }))!;
    const overlay = { path: join(workDir, 'title.png'), top: title.top };
    writeFileSync(overlay.path, title.png);

    const throughProduct = async () => {
      const { body: started } = await stack.call<{ jobId: string }>('POST', `/dashboard/api/posts/${post.id}/video`);
      for (;;) {
        const { body: job } = await stack.call<{ status: string; error: string | null }>('GET', `/video/jobs/${started.jobId}`);
        if (job.status === 'done') return;
        if (job.status === 'failed' || job.status === 'cancelled') throw new Error(`video job ${job.status}: ${job.error}`);
        await new Promise((resolveWait) => setTimeout(resolveWait, pollMs));
      }
    };
    const ffmpegAlone = () =>
      encodePostVideo({ ffmpegPath: stack.config.video.ffmpegPath, artworkPath, overlay, format: '9:16', outputPath: join(workDir, 'alone.mp4') });

    await throughProduct();
    await ffmpegAlone();
    const product: number[] = [];
    const alone: number[] = [];
    for (let run = 0; run < settings.videoRuns; run += 1) {
      product.push((await timed(throughProduct)).ms);
      alone.push((await timed(ffmpegAlone)).ms);
    }
    return [
      heading(`video 1080×1920 (${settings.videoRuns} runs each), p50`),
      compared('video job: start → done, polled', percentile(product, 50), 'ms', { value: percentile(alone, 50), name: 'ffmpeg alone, same command line' }),
    ];
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}
