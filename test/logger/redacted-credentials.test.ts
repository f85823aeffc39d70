import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';

// An error's words may quote the URL a library was fetching, and a URL we log may carry a credential: the logger
// redacts both, whatever code logs them.

const directory = mkdtempSync(join(tmpdir(), 'redacted-log-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

it('when an error, an error message or a URL quoting credentials is logged, then the line keeps none of them', async () => {
  const file = join(directory, 'service.log');
  const logger = createLogger({ level: 'info', name: 'worker', file });
  const failure = new Error('GET https://api.telegram.org/bot42:AAS3CR3T/getMe failed', {
    cause: new Error('https://graph.threads.net/v1.0/me?access_token=THS3CR3T'),
  });
  logger.warn({ err: failure }, 'call failed');
  logger.warn({ error: 'refused at /oauth/x/callback?code=CODES3CR3T&state=STS3CR3T' }, 'activity failed');
  logger.info({ url: 'https://h/files/a.png?expires=1&signature=SIGS3CR3T' }, 'link made');
  await expect.poll(() => readFileSync(file, 'utf8').trim().split('\n').length).toBe(3);

  const text = readFileSync(file, 'utf8');
  expect(text).not.toContain('S3CR3T');
  expect(text).toContain('/bot42:REDACTED/getMe');
  expect(text).toContain('?code=REDACTED&state=REDACTED');
});
