import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where toolchain builds (Temporal CLI, test server jars, S3 test server) are cached between runs, outside the
 * repository so that a fresh clone reuses them. CONTENT_SERVICE_CACHE_DIR overrides it.
 */
export function toolchainCacheDir(): string {
  return process.env.CONTENT_SERVICE_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'content-service');
}
