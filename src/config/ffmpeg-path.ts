import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The ffmpeg to run: FFMPEG_PATH when set, else the static build that the optional npm dependency
 * `@ffmpeg-installer/linux-x64` ships (Linux x64; installed by `npm ci`, nothing fetched at run time), else the
 * `ffmpeg` on PATH (e.g. Debian's package, or Homebrew's on a Mac).
 */
export function defaultFfmpegPath(): string {
  try {
    const packageDir = dirname(createRequire(import.meta.url).resolve('@ffmpeg-installer/linux-x64/package.json'));
    const binary = join(packageDir, 'ffmpeg');
    if (existsSync(binary)) return binary;
  } catch {
    // Not installed on this platform: fall through to PATH.
  }
  return 'ffmpeg';
}
