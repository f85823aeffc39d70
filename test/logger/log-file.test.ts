import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { requestLogging } from '../../src/api/middleware/request-logging.ts';

// The benchmarks run the service in their own process and send its logs to a file: the lines must be the ones
// production writes to stdout, formatted, censored and written, not skipped.

const directory = mkdtempSync(join(tmpdir(), 'log-file-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

it('when a logger is given a file, then its JSON lines at its level, secrets censored, are written there', async () => {
  const file = join(directory, 'service.log');
  const logger = createLogger({ level: 'info', name: 'api', file });
  logger.info({ webhook: { secret: 'whsec_123' } }, 'request completed');
  logger.debug('below the level');
  await expect.poll(() => written(logger, file)).toContain('\n');

  const lines = written(logger, file)
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(lines).toEqual([expect.objectContaining({ name: 'api', level: 30, msg: 'request completed', webhook: { secret: '[redacted]' } })]);
});

it('when the request log runs at info into a file, then each request writes its line', async () => {
  const file = join(directory, 'requests.log');
  const logger = createLogger({ level: 'info', name: 'api', file });
  const { default: express } = await import('express');
  const app = express()
    .use(requestLogging(logger))
    .get('/ping', (_req, res) => void res.status(204).end());
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolveListen) => server.once('listening', resolveListen));
  try {
    const { port } = server.address() as { port: number };
    expect((await fetch(`http://127.0.0.1:${port}/ping`)).status).toBe(204);
  } finally {
    await new Promise((resolveClose) => server.close(resolveClose));
  }
  await expect.poll(() => written(logger, file)).toContain('"msg":"request completed"');
});

/** What the logger's stream has written so far; its file opens asynchronously, as stdout's stream writes. */
function written(logger: ReturnType<typeof createLogger>, file: string): string {
  logger.flush();
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}
