import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/schemas.ts';
import { openDatabase, type Database } from '../../src/adapters/database/orm.ts';
import { createWorkspace } from '../../src/domain/workspaces/create-workspace.ts';
import { ourSideSentence } from '../../src/adapters/temporal/failure-reasons.ts';
import { closedPort } from '../fakes/closed-port.ts';
import { startApiProcess } from '../support/api-process.ts';
import { eventually } from '../support/eventually.ts';
import { apiClient, type ApiClient } from '../support/http.ts';
import { testConfigEnv } from '../support/test-config.ts';
import { createTestDatabase } from '../support/test-database.ts';
import { startWorkerProcess } from '../support/worker-process.ts';

// The api and the worker as real processes, whose logs are read back: what a dependency said (ffmpeg's path, an
// server that refused the connection) stays in the log next to the request id and workflow id, and the client
// reads a sentence of ours.

const ffmpegPath = `/opt/internal-tools/ffmpeg-${randomUUID()}/bin/ffmpeg`;

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let orm: Database;
let env: Record<string, string>;
let api: Awaited<ReturnType<typeof startApiProcess>>;
let worker: { process: ChildProcess; output: () => string };
let client: ApiClient;
let key: string;

beforeAll(async () => {
  database = await createTestDatabase();
  orm = await openDatabase(database.url);
  env = { ...testConfigEnv(database.url), FFMPEG_PATH: ffmpegPath, SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true' };
  [api, worker] = await Promise.all([startApiProcess(env), startWorkerProcess(env)]);
  ({ apiKey: key } = await createWorkspace(orm, { name: 'Failures', plan: 'growth' }));
  client = apiClient(api.url, key);
});
afterAll(async () => {
  for (const child of [api?.process, worker?.process]) {
    if (!child || child.exitCode !== null) continue;
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
  await orm?.close();
  await database?.drop();
  if (env?.STORAGE_DIR) rmSync(env.STORAGE_DIR, { recursive: true, force: true });
});

/** The JSON log lines of `output` (whole lines only) that `match`. */
function logLinesOf(output: string, match: (line: Record<string, unknown>) => boolean): Record<string, unknown>[] {
  return output
    .split('\n')
    .slice(0, -1)
    .flatMap((line) => (line.startsWith('{') ? [JSON.parse(line) as Record<string, unknown>] : []))
    .filter(match);
}

describe('a video job whose ffmpeg cannot be run', () => {
  it(
    'when every attempt fails, then the job reads our sentence, never the binary path, and the worker log has it with the job and request ids',
    { timeout: 120_000 },
    async () => {
      const project = await client.post<{ id: string }>('/projects', { name: 'Videos' });
      const post = await client.post<Schemas['Post']>('/posts', { title: 'Harbour', prompt: 'A harbour at dawn', projectId: project.body.id });
      expect((await client.post(`/posts/${post.body.id}/generate`)).status).toBe(200);

      const requestId = `video-${randomUUID()}`;
      const started = await fetch(`${api.url}/dashboard/api/posts/${post.body.id}/video`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'x-request-id': requestId },
      });
      expect(started.status).toBe(202);
      const { jobId } = (await started.json()) as { jobId: string };

      const answers: string[] = [];
      const final = await eventually(async () => {
        const job = await client.get<Schemas['VideoJob']>(`/video/jobs/${jobId}`);
        answers.push(JSON.stringify(job.body));
        expect(job.body.status).toBe('failed');
        return job.body;
      }, 100_000);
      expect(final).toMatchObject({ status: 'failed', message: 'The video could not be made.', error: ourSideSentence });
      // Between attempts (5 s, then 10 s) the job says why it is trying again, in the same words.
      expect(answers.some((answer) => answer.includes(`(attempt 2, after: ${ourSideSentence.replace(/\.$/, '')})`))).toBe(true);
      for (const answer of answers) expect(answer).not.toContain('/opt/internal-tools');

      const logged = await eventually(() => {
        const lines = logLinesOf(worker.output(), (line) => line.msg === 'A video job failed' && line.workflowId === jobId);
        expect(lines).toHaveLength(1);
        return Promise.resolve(lines[0]!);
      });
      expect(logged).toMatchObject({ requestId, reason: ourSideSentence, failure: expect.stringContaining(ffmpegPath) });
    },
  );
});

describe('a social connection whose server cannot be reached', () => {
  it('when the check of the credentials fails to connect, then the 503 names the platform in our words and the api log has what failed with the request id', async () => {
    const port = await closedPort();
    const requestId = `social-${randomUUID()}`;
    const answer = await client.post<Schemas['Problem']>(
      '/social-connections',
      { platform: 'mastodon', instanceUrl: `https://127.0.0.1:${port}`, accessToken: 'token' },
      { headers: { 'x-request-id': requestId } },
    );
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ type: '/problems/service-unavailable', requestId });
    expect(answer.body.detail).toBe('Could not check the credentials with mastodon: it could not be reached or did not answer in time; try again shortly.');
    expect(JSON.stringify(answer.body)).not.toContain('refused the connection');

    const logged = await eventually(() => {
      const lines = logLinesOf(
        api.output(),
        (line) => (line.req as { id?: string } | undefined)?.id === requestId && line.msg === 'a dependency did not answer',
      );
      expect(lines).toHaveLength(1);
      return Promise.resolve(JSON.stringify(lines[0]));
    });
    // What the connector said, which the answer used to carry.
    expect(logged).toContain('Mastodon server refused the connection');
  });
});
