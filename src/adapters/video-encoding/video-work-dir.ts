import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const staleAfterMs = 60 * 60 * 1000;

/**
 * A fresh directory for one video's files, under one parent per machine. A worker killed in the middle of a video
 * cannot remove its directory; the next video made on the machine removes those older than an hour.
 */
export async function videoWorkDir(parent = join(tmpdir(), 'content-service-videos')): Promise<string> {
  await mkdir(parent, { recursive: true });
  for (const name of await readdir(parent)) {
    const path = join(parent, name);
    const modified = await stat(path).then(
      (info) => info.mtimeMs,
      () => Date.now(),
    );
    if (Date.now() - modified > staleAfterMs) await rm(path, { recursive: true, force: true });
  }
  return mkdtemp(join(parent, 'video-'));
}
