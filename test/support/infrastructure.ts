import { existsSync, readFileSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { inject } from 'vitest';

/** The servers and builds the global setup makes for the whole run (test/global-setup.ts). */
export type Infrastructure = {
  postgresAdminUrl: string;
  /** A migrated database that each test file clones (test/support/test-database.ts). */
  templateDatabase: string;
  temporalAddress: string;
  /** The time-skipping test server's launcher (test/infra/temporal-test-server.ts). */
  testServerLauncher: string;
  workflowBundlePath: string;
  /** The same workflows with heartbeat timeouts of at most 5 s, for the tests that kill workers (quick-failover-interceptors.ts). */
  quickFailoverBundlePath: string;
};

export type InfrastructureFile = { ready: Infrastructure } | { failed: string };

// The global setup starts these in the background and writes them to a file when they are ready, so that the test
// files that need no server (pure functions, lint, the CLI's argument parsing) run at once instead of waiting for
// PostgreSQL, Temporal and the workflow bundle. A file that needs them imports this module, directly or through a
// support helper, and its import waits here (top-level await) until they are ready.
export const infrastructure: Infrastructure = await whenReady(inject('infrastructureFile'));

async function whenReady(path: string): Promise<Infrastructure> {
  await whenWritten(path);
  const written = JSON.parse(readFileSync(path, 'utf8')) as InfrastructureFile;
  if ('failed' in written) throw new Error(`The global setup could not start the test infrastructure:\n${written.failed}`);
  return written.ready;
}

/** Resolves once `path` exists: the global setup renames the finished file into place, which the watch sees. */
function whenWritten(path: string): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(dirname(path), (_event, name) => {
      if (name === basename(path) && existsSync(path)) done();
    });
    const done = () => {
      watcher.close();
      resolve();
    };
    // Written before the watch began.
    if (existsSync(path)) done();
  });
}
