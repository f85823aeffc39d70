import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestApp } from './test-app.ts';

const run = promisify(execFile);

/**
 * Runs the admin CLI exactly as the README tells operators to, against the test app's database and Temporal. Its
 * DATA_DIR (where a stack without secrets keeps the dev stack's) lies in the app's storage directory, which the app
 * removes when it stops, so no test writes into the checkout. `env` adds or (given as undefined) removes variables.
 */
export function runAdmin(
  app: Pick<TestApp, 'config'>,
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ stdout: string; stderr: string }> {
  const merged: Record<string, string | undefined> = {
    ...process.env,
    DATA_DIR: join(app.config.storage.directory, 'admin-data'),
    DATABASE_URL: app.config.database.url,
    TEMPORAL_ADDRESS: app.config.temporal.address,
    TEMPORAL_TASK_QUEUE: app.config.temporal.taskQueue,
    ...env,
  };
  // A variable given as undefined is left out (not passed as the text "undefined").
  return run('npm', ['run', '--silent', 'admin', '--', ...args], {
    env: Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined)),
  });
}
