import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { SocialVideo } from '../../src/adapters/social/social-connector.ts';
import { defaultFfmpegPath } from '../../src/config/ffmpeg-path.ts';

// Real MP4 files for connector tests, made by the ffmpeg the service ships (small frames, so they take a moment),
// and a post's video as a connector gets it.

/**
 * An H.264 MP4 of a test pattern, `width`×`height`, `seconds` long at 10 fps; with `noise`, of random pixels encoded
 * losslessly, so it is large (about 6 MB a second at 480×854) for uploads in parts.
 */
export function makeVideo({ width = 108, height = 192, seconds = 1, noise = false } = {}): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'video-'));
  try {
    const file = join(dir, 'video.mp4');
    const source = noise
      ? `nullsrc=size=${width}x${height}:rate=10:duration=${seconds},geq=lum='random(1)*255':cb=128:cr=128`
      : `testsrc=size=${width}x${height}:rate=10:duration=${seconds}`;
    const quality = noise ? ['-qp', '0'] : [];
    const args = [
      '-hide_banner',
      '-nostdin',
      '-y',
      '-f',
      'lavfi',
      '-i',
      source,
      '-c:v',
      'libx264',
      ...quality,
      '-pix_fmt',
      'yuv420p',
      '-movflags',
      '+faststart',
      file,
    ];
    const { status, stderr } = spawnSync(defaultFfmpegPath(), args, { encoding: 'utf8' });
    if (status !== 0) throw new Error(`ffmpeg could not make a test video:\n${stderr}`);
    return readFileSync(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A post's video as the publish activity gives it to a connector, its bytes streamed in small chunks as storage
 * would; `facts` stand in for the job's (a test can claim a length the bytes do not have), `url` for its link.
 */
export function socialVideoOf(bytes: Buffer, facts: Partial<SocialVideo> = {}): SocialVideo {
  return {
    type: 'video/mp4',
    bytes: bytes.length,
    durationMs: 1000,
    width: 108,
    height: 192,
    alt: 'A test pattern',
    url: () => Promise.reject(new Error('this test gives the video no link')),
    open: () => Readable.from(chunksOf(bytes, 16 * 1024)),
    ...facts,
  };
}

function* chunksOf(bytes: Buffer, size: number): Generator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}
