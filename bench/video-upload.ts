import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import got from 'got';
import { callSessionStore } from '../src/adapters/social/call-session-store.ts';
import { mediaLedger } from '../src/adapters/social/media-ledger.ts';
import { createPlatformHttp } from '../src/adapters/social/platform-http.ts';
import { createFilesystemStorage } from '../src/adapters/object-storage/filesystem-storage.ts';
import { socialVideoOf } from '../src/domain/publishing/post-media.ts';
import { uploadedXVideo } from '../src/adapters/social/x/x-video-upload.ts';
import { settings } from './settings.ts';
import { percentile } from './stats.ts';
import { alone, atMost, compared, heading, ratioAtLeast, type Row } from './table.ts';

// A post's video uploaded in parts, as the worker does it (X's chunked upload in 4 MiB parts, the video streamed
// from the filesystem storage driver) to a sink in another process, next to a bare streamed POST of the same file
// (read as Node reads a file by default) to the same sink. Rounds alternate,
// so machine noise falls on both alike. The uploader's memory is read from RSS every 20 ms during each upload: its
// growth over what it was before is what the upload costs, and must stay bounded whatever the video's size.

const rssEveryMs = 20;
const megabyte = 1024 * 1024;

export async function benchVideoUpload(): Promise<Row[]> {
  const bytes = settings.uploadMegabytes * 1_000_000;
  const workDir = mkdtempSync(join(tmpdir(), 'bench-upload-'));
  const storage = createFilesystemStorage({ directory: workDir, urlSigningSecret: 'bench'.repeat(8), defaultTtlSeconds: 60, baseUrl: () => 'http://bench' });
  const key = 'bench/video.mp4';
  const file = join(workDir, key);
  const sink = fork(new URL('./upload-sink.ts', import.meta.url).pathname, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    mkdirSync(dirname(file), { recursive: true });
    await writeFileOf(file, bytes);
    const [{ port }] = (await once(sink, 'message')) as [{ port: number }];
    const apiUrl = `http://127.0.0.1:${port}`;
    const http = createPlatformHttp('X', { allowPrivateNetworks: true, timeoutMs: 30_000 });
    // The video as the publish activity gives it to a connector: streamed from the storage driver.
    const video = socialVideoOf({ storage }, { key, type: 'video/mp4', bytes, durationMs: 60_000, width: 1080, height: 1920 }, '', () =>
      Promise.reject(new Error('not linked')),
    );
    const throughConnector = () => uploadedXVideo({ http, apiUrl, token: 'bench', ledger: mediaLedger(callSessionStore()), idempotencyKey: 'bench' }, video);
    const bare = () => got.post(`${apiUrl}/bare`, { body: createReadStream(file), headers: { 'content-length': String(bytes) } }).json();

    // A first round of each, not counted: the process's first upload also grows it once for good (the HTTP client's
    // code, the heap's first growth), which a worker that has been publishing has behind it. Shown beside the figure.
    const cold = await measuredUpload(throughConnector);
    await measuredUpload(bare);
    const connector: number[] = [];
    const floor: number[] = [];
    const growth: number[] = [];
    for (let round = 0; round < settings.uploadRounds; round += 1) {
      const measured = await measuredUpload(throughConnector);
      connector.push(bytes / measured.seconds);
      growth.push(measured.rssGrowth);
      floor.push(bytes / (await measuredUpload(bare)).seconds);
    }
    const rate = (perSecond: number[]) => percentile(perSecond, 50) / megabyte;
    return [
      heading(`upload of a ${settings.uploadMegabytes} MB video in 4 MiB parts (${settings.uploadRounds} rounds), p50`),
      compared('chunked upload, MiB/s', rate(connector), '/s', { value: rate(floor), name: 'one bare streamed POST of the file' }, ratioAtLeast(0.8)),
      alone(
        'chunked upload: RSS growth of the uploader, MiB (most of any round)',
        Math.max(...growth) / megabyte,
        '',
        atMost(64, ''),
        `the process's first upload: ${(cold.rssGrowth / megabyte).toFixed(0)} MiB`,
      ),
    ];
  } finally {
    sink.kill();
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** `bytes` of pseudo-random data (incompressible, as a video is), written in 1 MB pieces. */
async function writeFileOf(file: string, bytes: number): Promise<void> {
  const piece = Buffer.alloc(1_000_000);
  for (let at = 0; at < piece.length; at += 4) piece.writeUInt32LE((Math.random() * 0x1_0000_0000) >>> 0, at);
  await pipeline(
    Readable.from(
      (function* () {
        for (let written = 0; written < bytes; written += piece.length) yield piece.subarray(0, Math.min(piece.length, bytes - written));
      })(),
    ),
    createWriteStream(file),
  );
}

/** How long `upload` took and how far the RSS rose above where it stood at the start. */
async function measuredUpload(upload: () => Promise<unknown>): Promise<{ seconds: number; rssGrowth: number }> {
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), rssEveryMs);
  const started = performance.now();
  try {
    await upload();
  } finally {
    clearInterval(sampler);
  }
  return { seconds: (performance.now() - started) / 1000, rssGrowth: Math.max(0, peak - before) };
}
