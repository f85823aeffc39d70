import { TestNetworkNoAppView } from '@atproto/dev-env';
import { rmSync } from 'node:fs';

// The child process of test/infra/atproto-pds.ts: the reference atproto PDS and its PLC directory from
// @atproto/dev-env, on free loopback ports. It lives in a process of its own so that its native modules (SQLite,
// its own sharp) never share a process with ours, and a crash of it fails the tests that use it, not the runner.
// It reports its URLs over IPC, and stops when told to or when its parent goes away.

// dev-env puts the PDS's database and blobs in the temporary directory and leaves them there: this makes it the
// directory of this process, removed when it stops (set after the import, so that the port locks dev-env shares
// between processes stay shared).
const { ATPROTO_PDS_DATA_DIR: dataDir = '' } = process.env;
if (!dataDir) throw new Error('ATPROTO_PDS_DATA_DIR is not set: start this process with startAtprotoPds');
process.env.TMPDIR = dataDir;
// A deployed PDS takes blobs up to 100 MB (PDS_BLOB_UPLOAD_LIMIT in the official distribution,
// https://github.com/bluesky-social/pds), room for a post's video; the package's own default is 5 MB.
const network = await TestNetworkNoAppView.create({ pds: { blobUploadLimit: 100 * 1024 * 1024 } });

async function stop(): Promise<void> {
  await network.close().catch(() => undefined);
  // Also when the parent died without removing it.
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
}

process.on('disconnect', () => void stop());
process.on('message', (message) => {
  if (message === 'stop') void stop();
});
process.send?.({ pdsUrl: network.pds.url, plcUrl: network.plc.url });
