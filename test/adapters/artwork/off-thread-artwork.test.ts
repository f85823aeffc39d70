import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { renderLocalArtwork } from '../../../src/adapters/artwork/local-artwork.ts';
import { renderLocalArtworkOffThread } from '../../../src/adapters/artwork/off-thread-artwork.ts';
import type { PostFormat } from '../../../src/adapters/artwork/post-formats.ts';

describe('renderLocalArtworkOffThread', () => {
  it('when requests overlap, then each gets the bytes the renderer draws for it on the calling thread', async () => {
    const requests = [1, 2, 3, 4].map((seed) => ({
      prompt: `Harbour at dawn ${seed}`,
      seed,
      format: seed % 2 ? ('1:1' as const) : ('9:16' as const),
      colors: {},
    }));
    const offThread = await Promise.all(requests.map(renderLocalArtworkOffThread));
    for (const [index, request] of requests.entries()) expect(offThread[index]!.equals(await renderLocalArtwork(request))).toBe(true);
  });

  it('when a render fails on the thread, then that caller gets the error and the next render still works', async () => {
    const broken = renderLocalArtworkOffThread({ prompt: 'x', seed: 1, format: 'no-such-format' as PostFormat, colors: {} });
    const fine = renderLocalArtworkOffThread({ prompt: 'x', seed: 1, format: '1:1', colors: {} });
    await expect(broken).rejects.toThrow(/width/);
    expect((await fine).length).toBeGreaterThan(1000);
    expect((await renderLocalArtworkOffThread({ prompt: 'y', seed: 2, format: '16:9', colors: {} })).length).toBeGreaterThan(1000);
  });

  it('when the renders are done, then the idle thread does not keep the process alive', async () => {
    const module = new URL('../../../src/adapters/artwork/off-thread-artwork.ts', import.meta.url).href;
    const directory = mkdtempSync(join(tmpdir(), 'artwork-exit-'));
    // A module file, not --eval: the thread inherits the process's flags, and --input-type is refused in a thread.
    const script = join(directory, 'render-once.mjs');
    writeFileSync(
      script,
      `const { renderLocalArtworkOffThread } = await import(${JSON.stringify(module)});\n` +
        `const png = await renderLocalArtworkOffThread({ prompt: 'Quiet exit', seed: 3, format: '1:1', colors: {} });\n` +
        `process.stdout.write(String(png.length));\n`,
    );
    try {
      // Were the idle thread still holding the process, the child would never exit and the timeout would kill it.
      const child = await promisify(execFile)(process.execPath, [script], { timeout: 20_000 });
      expect(Number(child.stdout)).toBeGreaterThan(1000);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
