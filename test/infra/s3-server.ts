import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolchainCacheDir } from '../../src/local/embedded/cache-dir.ts';
import { findFreePort, waitForPort } from '../../src/local/embedded/ports.ts';
import { fetchMavenArtifact } from './maven.ts';

// A real S3-compatible server on loopback for the S3 storage driver's tests: s3proxy (Maven Central) on a
// filesystem backend, with AWS SigV4 authentication on, so wrong keys and tampered presigned URLs are refused.
const version = '4.1.0';

export type S3Server = { endpoint: string; accessKeyId: string; secretAccessKey: string; stop(): Promise<void> };

/** Downloads the server once (Maven Central) and returns the path of its jar. */
export async function fetchS3ServerJar(): Promise<string> {
  const directory = join(toolchainCacheDir(), `s3proxy-${version}`);
  await fetchMavenArtifact({ groupId: 'org.gaul', artifactId: 's3proxy', version, classifier: 'jar-with-dependencies' }, directory, { transitive: false });
  return join(directory, `s3proxy-${version}-jar-with-dependencies.jar`);
}

export async function startS3Server(): Promise<S3Server> {
  // The global setup installs it on a first run, in the background: wait for that rather than install it beside it.
  await import('../support/infrastructure.ts');
  const jar = await fetchS3ServerJar();
  const port = await findFreePort();
  const dataDir = mkdtempSync(join(tmpdir(), 's3proxy-'));
  const accessKeyId = 'test-access-key';
  const secretAccessKey = randomBytes(24).toString('base64url');
  const endpoint = `http://127.0.0.1:${port}`;
  const java = spawn(
    'java',
    [
      '-XX:TieredStopAtLevel=1',
      `-Ds3proxy.endpoint=${endpoint}`,
      '-Ds3proxy.authorization=aws-v2-or-v4',
      `-Ds3proxy.identity=${accessKeyId}`,
      `-Ds3proxy.credential=${secretAccessKey}`,
      '-Djclouds.provider=filesystem-nio2',
      `-Djclouds.filesystem.basedir=${dataDir}`,
      '-DLOG_LEVEL=warn',
      '-jar',
      jar,
      '--properties',
      '/dev/null',
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise((resolveExit) => java.once('exit', resolveExit));
  await waitForPort(port, 60_000);
  return {
    endpoint,
    accessKeyId,
    secretAccessKey,
    async stop() {
      java.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
