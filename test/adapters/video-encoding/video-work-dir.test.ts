import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { videoWorkDir } from '../../../src/adapters/video-encoding/video-work-dir.ts';

const parent = mkdtempSync(join(tmpdir(), 'video-work-dir-test-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

describe('videoWorkDir', () => {
  it('when a directory left by a killed worker is over an hour old, then the next video removes it and keeps recent ones', async () => {
    const stale = join(parent, 'video-stale');
    const recent = join(parent, 'video-recent');
    mkdirSync(stale);
    mkdirSync(recent);
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    utimesSync(stale, twoHoursAgo, twoHoursAgo);

    const fresh = await videoWorkDir(parent);
    expect(dirname(fresh)).toBe(parent);
    expect(existsSync(fresh)).toBe(true);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(recent)).toBe(true);
  });
});
