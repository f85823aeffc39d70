import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ffmpegReportOf } from '../fakes/mp4.ts';
import { defaultFfmpegPath } from '../../src/config/ffmpeg-path.ts';
import { eventually } from './eventually.ts';

export type VideoFacts = {
  codec: string;
  profile: string;
  pixelFormat: string;
  width: number;
  height: number;
  fps: number;
  seconds: number;
  faststart: boolean;
};

/**
 * What an MP4 is, as ffmpeg reads it (`ffmpeg -i` prints the stream line; the bundled build has no ffprobe), and
 * whether its index (`moov`) comes before the media (`mdat`), which is what `faststart` means.
 */
export function probeVideo(bytes: Buffer): VideoFacts {
  const stderr = ffmpegReportOf(bytes);
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
}

/**
 * What Temporal's retention does to a closed run, now: once the run has closed (a job can read done a moment before
 * its workflow completes), deletes its history (the dev server's DeleteWorkflowExecution, asked again until it
 * takes) and waits until describing the run answers "not found".
 */
export async function deleteWorkflowHistory(client: Client, workflowId: string): Promise<void> {
  await eventually(async () => {
    const status = await client.workflow
      .getHandle(workflowId)
      .describe()
      .then(
        (description) => description.status.name,
        (error: unknown) => {
          if (error instanceof WorkflowNotFoundError) return 'GONE';
          throw error;
        },
      );
    if (status === 'GONE') return;
    expect(status).not.toBe('RUNNING');
    await client.workflowService.deleteWorkflowExecution({ namespace: client.options.namespace, workflowExecution: { workflowId } });
    expect(status).toBe('GONE');
  }, 60_000);
}

/**
 * The real ffmpeg with the post video's frames paced by the `realtime` filter (a 6-second video takes 6 s at least),
 * so a test can act while it encodes. A shell script that rewrites the filter graph and `exec`s ffmpeg, so
 * the process the worker starts is ffmpeg itself. Returns its path, for FFMPEG_PATH.
 */
export function pacedFfmpeg(directory: string): string {
  const path = join(directory, 'paced-ffmpeg');
  writeFileSync(
    path,
    [
      '#!/bin/sh',
      'for arg do',
      '  shift',
      `  case "$arg" in *'format=yuv420p[video]') arg="\${arg%'[video]'},realtime[video]" ;; esac`,
      '  set -- "$@" "$arg"',
      'done',
      `exec '${defaultFfmpegPath()}' "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  return path;
}

/** The ffmpeg processes this process started (the test app's workers run in it), by PID. */
export function ffmpegChildren(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
        const [, state, ppid] = stat.slice(stat.lastIndexOf(')') + 1).split(' ');
        return Number(ppid) === process.pid && state !== 'Z' && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('ffmpeg');
      } catch {
        return false; // ended while we looked
      }
    })
    .map(Number);
}
