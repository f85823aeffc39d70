import { spawn } from 'node:child_process';
import { postFormats, type PostFormat } from '../artwork/post-formats.ts';

// The post video: the artwork with a slow push-in (Ken Burns), the title band fading in over it, a fade from and
// to black; H.264 High, yuv420p (plays everywhere), `faststart` (the index first, so playback starts while it
// downloads), no audio. Short enough to loop on a feed.

export const videoSeconds = 6;
const videoFps = 30;
const videoFrames = videoSeconds * videoFps;

export type EncodeVideoInput = {
  ffmpegPath: string;
  /** The artwork (any size; it is cropped to the format) and the title band (transparent PNG) with its offset. */
  artworkPath: string;
  overlay: { path: string; top: number } | null;
  format: PostFormat;
  outputPath: string;
  /** Called with the share of frames encoded so far, 0 to 1. */
  onProgress?: (done: number) => void;
  /** Aborting it kills ffmpeg (the activity's cancellation signal: a cancelled job or a worker shutting down). */
  signal?: AbortSignal;
};

/** An ffmpeg run that failed: its exit code (null when killed) and the end of what it wrote to stderr. */
export class VideoEncodingError extends Error {
  readonly exitCode: number | null;

  constructor(message: string, exitCode: number | null) {
    super(message);
    this.name = 'VideoEncodingError';
    this.exitCode = exitCode;
  }
}

export function encodePostVideo(input: EncodeVideoInput): Promise<void> {
  return runFfmpeg(input.ffmpegPath, videoArguments(input), input.onProgress, input.signal);
}

type VideoInputs = Pick<EncodeVideoInput, 'artworkPath' | 'overlay' | 'format' | 'outputPath'>;

/** ffmpeg's arguments for the post video. */
function videoArguments(input: VideoInputs): string[] {
  return [...inputArguments(input), '-filter_complex', filterGraph(input), '-map', '[video]', ...h264Arguments(), input.outputPath];
}

/** Each picture is read once; the filters make the frames from it (no per-frame decoding of a looped image). */
function inputArguments(input: Pick<VideoInputs, 'artworkPath' | 'overlay'>): string[] {
  return ['-hide_banner', '-nostdin', '-y', '-i', input.artworkPath, ...(input.overlay ? ['-i', input.overlay.path] : [])];
}

function filterGraph({ format, overlay }: Pick<VideoInputs, 'format' | 'overlay'>): string {
  const { width, height } = postFormats[format];
  // zoompan turns the one artwork frame into all the frames; it works in whole pixels, and starting from twice
  // the size keeps the push-in from visibly stepping.
  const zoom =
    `[0:v]scale=${2 * width}:${2 * height}:force_original_aspect_ratio=increase,crop=${2 * width}:${2 * height},` +
    `zoompan=z='1+0.12*on/${videoFrames}':x='iw/2-(iw/zoom/2)':y='ih/2-(ih/zoom/2)':d=${videoFrames}:s=${width}x${height}:fps=${videoFps}`;
  const fades = `fade=t=in:st=0:d=0.4,fade=t=out:st=${videoSeconds - 0.5}:d=0.5,format=yuv420p[video]`;
  if (!overlay) return `${zoom},${fades}`;
  const title = `[1:v]format=rgba,loop=loop=${videoFrames - 1}:size=1:start=0,setpts=N/${videoFps}/TB,fade=t=in:st=0.6:d=0.8:alpha=1[title]`;
  return `${zoom}[moving];${title};[moving][title]overlay=0:${overlay.top},${fades}`;
}

function h264Arguments(): string[] {
  return [
    '-frames:v',
    String(videoFrames),
    '-r',
    String(videoFps),
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-crf',
    '23',
    '-profile:v',
    'high',
    '-pix_fmt',
    'yuv420p',
    '-movflags',
    '+faststart',
    '-an',
  ];
}

/**
 * Runs ffmpeg, turning its `-progress` output into calls of `onProgress`. An aborted `signal` kills it (SIGKILL: its
 * half-written output is thrown away anyway) and rejects with the signal's reason.
 */
function runFfmpeg(ffmpegPath: string, args: string[], onProgress?: (done: number) => void, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpegPath, ['-loglevel', 'error', '-progress', 'pipe:1', '-nostats', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(signal ? { signal, killSignal: 'SIGKILL' as const } : {}),
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const frame = /^frame=(\d+)/.exec(line);
        if (frame && onProgress) onProgress(Math.min(1, Number(frame[1]) / videoFrames));
      }
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      const why = error.code === 'ENOENT' ? `ffmpeg was not found at "${ffmpegPath}" (set FFMPEG_PATH)` : error.message;
      reject(new VideoEncodingError(why, null));
    });
    child.on('close', (code, killedBy) => {
      if (code === 0) return resolve();
      if (signal?.aborted) return reject(signal.reason as Error);
      const detail = stderr.trim().split('\n').slice(-3).join(' ') || `killed by ${killedBy ?? 'a signal'}`;
      reject(new VideoEncodingError(`ffmpeg failed: ${detail}`, code));
    });
  });
}
