import { TestNetworkNoAppView } from '@atproto/dev-env';

// The child process of test/infra/atproto-pds.ts: the reference atproto PDS and its PLC directory from
// @atproto/dev-env, on free loopback ports. It lives in a process of its own so that its native modules (SQLite,
// its own sharp) never share a process with ours, and a crash of it fails the tests that use it, not the runner.
// It reports its URLs over IPC, and stops when told to or when its parent goes away.

// dev-env puts the PDS's database and blobs in the temporary directory and leaves them there: this makes it the
// directory the parent removes (after the import, so the port locks dev-env shares between processes stay shared).
process.env.TMPDIR = process.env.ATPROTO_PDS_DATA_DIR;
const network = await TestNetworkNoAppView.create({});

async function stop(): Promise<void> {
  await network.close().catch(() => undefined);
  process.exit(0);
}

process.on('disconnect', () => void stop());
process.on('message', (message) => {
  if (message === 'stop') void stop();
});
process.send?.({ pdsUrl: network.pds.url, plcUrl: network.plc.url });
