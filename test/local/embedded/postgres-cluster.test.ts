import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startPostgresCluster } from '../../../src/local/embedded/postgres-cluster.ts';

const scratch = mkdtempSync(join(tmpdir(), 'cluster-permissions-'));
chmodSync(scratch, 0o755);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('a cluster directory the server user cannot reach', () => {
  it('when a parent is closed to others (as root), then start-up names that directory and what to do instead of failing in initdb', async () => {
    const closed = join(scratch, 'private');
    const dataDir = join(closed, 'data', 'postgres');
    const started = startPostgresCluster({ directory: dataDir, ephemeral: true });
    // Created by us with the default mode: reachable. Close it the way a home directory often is, then try again.
    await (await started).stop();
    chmodSync(closed, 0o700);
    const again = startPostgresCluster({ directory: join(closed, 'other', 'postgres'), ephemeral: true });
    if (process.getuid?.() === 0) {
      await expect(again).rejects.toThrow(`cannot enter ${closed} (mode 0700)`);
      await expect(again).rejects.toThrow('Set DATA_DIR to a directory outside it');
    } else {
      // Not root: PostgreSQL runs as this very user, who owns the directory.
      await (await again).stop();
    }
  });
});
