import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowIds } from '../../src/adapters/temporal/workflow-ids.ts';
import { startTemporalTlsProxy, type TemporalTlsProxy } from '../fakes/temporal-tls-proxy.ts';
import { createDevCertificates } from '../infra/dev-certificates.ts';
import { startAppWithWorkspace } from '../support/app-with-workspace.ts';
import { infrastructure } from '../support/infrastructure.ts';
import type { TestApp } from '../support/test-app.ts';
import type { TestWorkspace } from '../support/workspaces.ts';

// The dashboard's video start when Temporal takes the start and its answer is lost on the way back (a gRPC proxy in
// front of the dev server drops the connection once the server has answered): the api must find out that the job
// was started, not take its row back and answer 503 while its workflow runs without it.

const directory = mkdtempSync(join(tmpdir(), 'video-start-'));
let proxy: TemporalTlsProxy;
let app: TestApp;
let workspace: TestWorkspace;
let projectId: string;

beforeAll(async () => {
  const certificates = await createDevCertificates(directory);
  proxy = await startTemporalTlsProxy({ target: infrastructure.temporalAddress, certificates, clientCertificate: false });
  ({ app, workspace, projectId } = await startAppWithWorkspace({
    env: { TEMPORAL_ADDRESS: proxy.address, TEMPORAL_TLS_CA_PATH: certificates.caCertPath },
    project: 'Lost answers',
  }));
});
afterAll(async () => {
  await app?.stop();
  await proxy?.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('a video start whose answer from Temporal is lost', () => {
  it(
    'when Temporal started the job but the api never heard, then the api finds the run and answers 202 with the job, which completes',
    { timeout: 120_000 },
    async () => {
      const postId = (await workspace.client.post<{ id: string }>('/posts', { title: 'Unheard', prompt: 'A lighthouse', projectId })).body.id;
      expect((await workspace.client.post(`/posts/${postId}/generate`)).status).toBe(200);

      proxy.loseAnswersTo = ['StartWorkflowExecution'];
      let started;
      try {
        started = await fetch(`${app.url}/dashboard/api/posts/${postId}/video`, { method: 'POST', headers: { authorization: `Bearer ${workspace.key}` } });
      } finally {
        proxy.loseAnswersTo = [];
      }
      expect(proxy.answersLost).toBeGreaterThan(0);
      expect(started.status).toBe(202);
      const { jobId } = (await started.json()) as { jobId: string };
      await app.api.services.temporal.workflow.getHandle(workflowIds.videoJob(jobId)).result();
      const status = await workspace.client.get<{ status: string }>(`/video/jobs/${jobId}`);
      expect(status.body.status).toBe('done');
    },
  );
});
