import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultFfmpegPath } from '../../src/config/ffmpeg-path.ts';

// What a fake platform can tell of an uploaded video: whether it is an MP4 (ISO base media file,
// https://www.loc.gov/preservation/digital/formats/fdd/fdd000155.shtml), whose first box is `ftyp`, and, as the
// platform's processing would find, its frame size and length (read by the ffmpeg the service ships).

export function isMp4(bytes: Buffer): boolean {
  return bytes.length >= 12 && bytes.subarray(4, 8).toString('latin1') === 'ftyp';
}

/** What `ffmpeg -i` says of the bytes (its stderr): the container, each stream, the duration. */
export function ffmpegReportOf(bytes: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'video-report-'));
  try {
    const file = join(dir, 'video.mp4');
    writeFileSync(file, bytes);
    return spawnSync(defaultFfmpegPath(), ['-hide_banner', '-i', file], { encoding: 'utf8' }).stderr;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The video's frame size and length in seconds; undefined when ffmpeg cannot read it as a video. */
export function videoFactsOf(bytes: Buffer): { width: number; height: number; seconds: number } | undefined {
  const report = ffmpegReportOf(bytes);
  const size = /Video: .*?, (\d{2,5})x(\d{2,5})/.exec(report);
  const duration = /Duration: (\d+):(\d+):([\d.]+)/.exec(report);
  if (!size || !duration) return undefined;
  return { width: Number(size[1]), height: Number(size[2]), seconds: Number(duration[1]) * 3600 + Number(duration[2]) * 60 + Number(duration[3]) };
}
