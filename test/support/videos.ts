import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultFfmpegPath } from '../../src/video/ffmpeg-path.ts';

export type VideoFacts = { codec: string; profile: string; pixelFormat: string; width: number; height: number; fps: number; seconds: number; faststart: boolean };

/**
 * What an MP4 is, as ffmpeg reads it (`ffmpeg -i` prints the stream line; the bundled build has no ffprobe), and
 * whether its index (`moov`) comes before the media (`mdat`), which is what `faststart` means.
 */
export function probeVideo(bytes: Buffer): VideoFacts {
  const dir = mkdtempSync(join(tmpdir(), 'probe-'));
  try {
    const file = join(dir, 'video.mp4');
    writeFileSync(file, bytes);
    const { stderr } = spawnSync(defaultFfmpegPath(), ['-hide_banner', '-i', file], { encoding: 'utf8' });
    const stream = /Video: (\w+) \((\w+)\)[^,]*, (\w+)[^,]*(?:\([^)]*\))?, (\d+)x(\d+)[^\n]*?, ([\d.]+) fps/.exec(stderr);
    const duration = /Duration: (\d+):(\d+):([\d.]+)/.exec(stderr);
    if (!stream || !duration) throw new Error(`not a video ffmpeg can read:\n${stderr}`);
    return {
      codec: stream[1]!,
      profile: stream[2]!,
      pixelFormat: stream[3]!,
      width: Number(stream[4]),
      height: Number(stream[5]),
      fps: Number(stream[6]),
      seconds: Number(duration[1]) * 3600 + Number(duration[2]) * 60 + Number(duration[3]),
      faststart: bytes.indexOf('moov') < bytes.indexOf('mdat'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
