import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { chmodSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { migrateDatabase } from '../src/adapters/database/migrate-database.ts';
import { startPostgresCluster } from '../src/local/embedded/postgres-cluster.ts';
import { startTemporalDevServer } from '../src/local/embedded/temporal-dev-server.ts';
import { fileURLToPath } from 'node:url';
import { workflowInterceptorsPath, workflowsPath } from '../worker/create-worker.ts';
import { prepareTemporalTestServer } from './infra/temporal-test-server.ts';
import { ensureChromium } from './infra/chromium.ts';
import { createDevCertificates } from './infra/dev-certificates.ts';
import { fetchS3ServerJar } from './infra/s3-server.ts';
import { ensureNostrRelay } from './infra/nostr-relay.ts';
import type { Infrastructure, InfrastructureFile } from './support/infrastructure.ts';

const templateDatabase = 'content_service_template';

declare module 'vitest' {
  // Declaration merging needs an interface.
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions
  export interface ProvidedContext {
    /** Where the servers are, once ready: read through test/support/infrastructure.ts, which waits for it. */
    infrastructureFile: string;
    devCaCertPath: string;
    devCertPath: string;
    devKeyPath: string;
    /** A directory for test files' own scratch (storage directories), removed in teardown. */
    scratchDir: string;
  }
}

// Tests that delete a workflow's history (a video job after Temporal no longer keeps it) wait until it is gone. A
// closed workflow's delete task waits for the transfer queue's ack level, which the server saves every 30 s by
// default: with 1 s the history is gone in about 4 s instead of about 30.
const deletedWithinSeconds = { 'history.transferProcessorUpdateAckInterval': '1s' };

/**
 * Prepares the run. What every test process needs at once is made before any file starts: the dev certificates the
 * processes trust and the scratch directory. The real infrastructure starts in the background, on ports chosen now:
 * a throwaway PostgreSQL cluster (with a migrated template database that each test file clones), a Temporal dev
 * server, the workflow bundles (the service's, and the crash tests' with short heartbeat timeouts), Temporal's time-skipping test server (fetched, not started: each workflow test starts
 * its own), and on a first run Chromium, s3proxy and the Nostr relay. It is written to a file when ready, and the
 * files that need it wait for it (test/support/infrastructure.ts) while the others run. Teardown stops all of it.
 */
export default async function setup(project: TestProject) {
  const started = Date.now();
  const log = (message: string) => console.log(`[global-setup] ${message}`);
  const workDir = mkdtempSync(join(tmpdir(), 'content-service-test-'));
  // The PostgreSQL server runs as the `postgres` user when we are root: it must be able to enter this directory.
  chmodSync(workDir, 0o755);
  const stops: Array<() => Promise<void>> = [];
  let infrastructure: Promise<void> = Promise.resolve();
  const teardown = async () => {
    await infrastructure;
    for (const stop of stops.reverse()) await stop().catch((error: unknown) => console.error(error));
    rmSync(workDir, { recursive: true, force: true });
  };

  try {
    const devCertificates = await createDevCertificates(join(workDir, 'tls'));
    project.provide('devCaCertPath', devCertificates.caCertPath);
    project.provide('devCertPath', devCertificates.certPath);
    project.provide('devKeyPath', devCertificates.keyPath);
    const scratchDir = join(workDir, 'scratch');
    mkdirSync(scratchDir);
    // Tests start PostgreSQL clusters in it too (they keep their temporary files here): as the work directory above.
    chmodSync(scratchDir, 0o755);
    project.provide('scratchDir', scratchDir);
    const infrastructureFile = join(workDir, 'infrastructure.json');
    project.provide('infrastructureFile', infrastructureFile);

    infrastructure = startInfrastructure(workDir, stops, log).then(
      (ready) => {
        writeAtomically(infrastructureFile, { ready } satisfies InfrastructureFile);
        log(`infrastructure ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      },
      (error: unknown) => {
        console.error(error);
        writeAtomically(infrastructureFile, { failed: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies InfrastructureFile);
      },
    );
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}

async function startInfrastructure(workDir: string, stops: Array<() => Promise<void>>, log: (message: string) => void): Promise<Infrastructure> {
  const [cluster, temporal, testServerLauncher, workflowBundlePath, quickFailoverBundlePath] = await allOrNothing([
    startPostgresCluster({ directory: join(workDir, 'postgres'), ephemeral: true, log }).then((value) => {
      stops.push(() => value.stop());
      return value;
    }),
    startTemporalDevServer({ headless: true, dynamicConfig: deletedWithinSeconds, log }).then((value) => {
      stops.push(() => value.stop());
      return value;
    }),
    prepareTemporalTestServer(),
    bundleWorkflows(join(workDir, 'workflow-bundle.js')),
    bundleWorkflows(join(workDir, 'quick-failover-bundle.js'), [quickFailoverInterceptorsPath]),
    fetchS3ServerJar(),
    ensureChromium(log),
    // Installed here, on a first run, so no test file's timeout pays for it; each test file starts its own relays.
    ensureNostrRelay(log),
  ] as const);
  await migrateDatabase(await cluster.ensureDatabase(templateDatabase));
  return {
    postgresAdminUrl: cluster.adminUrl,
    templateDatabase,
    temporalAddress: temporal.address,
    testServerLauncher,
    workflowBundlePath,
    quickFailoverBundlePath,
  };
}

const quickFailoverInterceptorsPath = fileURLToPath(new URL('support/quick-failover-interceptors.ts', import.meta.url));

/** The workflows as a deployed worker runs them, with the service's interceptors and `extraInterceptors`, at `path`. */
async function bundleWorkflows(path: string, extraInterceptors: string[] = []): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    workflowInterceptorModules: [workflowInterceptorsPath, ...extraInterceptors],
    logger: new DefaultLogger('WARN'),
  });
  writeFileSync(path, code);
  return path;
}

function writeAtomically(path: string, content: InfrastructureFile): void {
  writeFileSync(`${path}.partial`, JSON.stringify(content));
  renameSync(`${path}.partial`, path);
}

/** Like Promise.all, but waits for every task to settle before failing, so teardown sees everything started. */
async function allOrNothing<T extends readonly unknown[]>(tasks: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const results = await Promise.allSettled(tasks);
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  return results.map((result) => (result as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}
