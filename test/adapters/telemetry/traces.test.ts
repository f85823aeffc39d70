import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../src/adapters/database/orm.ts';
import { createWorkspace } from '../../../src/domain/workspaces/create-workspace.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../fakes/otlp-receiver.ts';
import { startStabilityServer, type StabilityServer } from '../../fakes/stability-server.ts';
import { startApiProcess } from '../../support/api-process.ts';
import { eventually } from '../../support/eventually.ts';
import { apiClient, type ApiClient } from '../../support/http.ts';
import { testConfigEnv } from '../../support/test-config.ts';
import { createTestDatabase } from '../../support/test-database.ts';
import { startWorkerProcess } from '../../support/worker-process.ts';

// The production entry points (`npm run api`, `npm run worker`) as processes of their own, with tracing on: the
// OpenTelemetry SDK is global to a process, so it stays out of the test runner's. Spans go to a local OTLP receiver,
// images to a local Stability AI.

const spanKindClient = 3;

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let orm: Database;
let receiver: OtlpReceiver;
let stability: StabilityServer;
let processes: ChildProcess[] = [];
let workerOutput: () => string;
let client: ApiClient;
let projectId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  orm = await openDatabase(database.url);
  receiver = await startOtlpReceiver();
  stability = await startStabilityServer();
  const env = {
    ...testConfigEnv(database.url),
    STABILITY_API_KEY: stability.apiKey,
    STABILITY_API_URL: stability.url,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    // Export spans soon after they end rather than every five seconds.
    OTEL_BSP_SCHEDULE_DELAY: '100',
  };
  const worker = await startWorkerProcess(env);
  workerOutput = worker.output;
  const api = await startApiProcess(env);
  processes = [worker.process, api.process];
  const { apiKey } = await createWorkspace(orm, { name: 'Traced', plan: 'growth' });
  client = apiClient(api.url, apiKey);
  projectId = (await client.post<{ id: string }>('/projects', { name: 'Traced' })).body.id;
}, 120_000);
afterAll(async () => {
  for (const child of processes) {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
  }
  await stability?.close();
  await receiver?.close();
  await orm?.close();
  await database?.drop();
});

describe('tracing and log context', () => {
  it('when a post is generated through the api, then one trace spans the request, the workflow, its activity and the call to Stability AI', async () => {
    const requestId = 'traces-test-generate';
    await generatedPost(requestId);

    // Each process exports its spans as they end: wait until all of them are in.
    const { trace, request, start, run, activity } = await eventually(() => Promise.resolve(generationTrace()));
    const providerCall = trace.find((span) => span.kind === spanKindClient && span.parentSpanId === activity.spanId);

    expect(request.parentSpanId).toBeUndefined();
    expect(start.parentSpanId).toBe(request.spanId);
    expect(run.parentSpanId).toBe(start.spanId);
    expect(activity.parentSpanId).toBe(run.spanId);
    expect(providerCall?.attributes['http.url']).toMatch(new RegExp(`^${stability.url}/v2beta/stable-image/generate/`));
    expect([request, run, activity].map((span) => span.attributes.requestId)).toEqual([requestId, requestId, requestId]);
  });

  it('when an activity logs, then its line carries the workflow, the run, the activity type, the attempt and the request id', async () => {
    const requestId = 'traces-test-delete';
    const postId = await generatedPost('traces-test-generate-to-delete');
    // Deleting a post orphans its image: a cleanup workflow deletes it and logs how many objects it deleted.
    expect((await client.delete(`/posts/${postId}`, { headers: { 'x-request-id': requestId } })).status).toBe(204);

    const line = await eventually(() => Promise.resolve(logLine(workerOutput(), 'orphaned objects deleted from storage')));
    expect(line).toMatchObject({
      workflowId: expect.stringMatching(/^storage-cleanup-/),
      workflowRunId: expect.any(String),
      activityType: 'deleteOrphanedObjects',
      attempt: 1,
      requestId,
    });
  });
});

async function generatedPost(requestId: string): Promise<string> {
  const postId = (await client.post<{ id: string }>('/posts', { title: 'Storm', prompt: 'A lighthouse in a storm', projectId })).body.id;
  const response = await client.post(`/posts/${postId}/generate`, {}, { headers: { 'x-request-id': requestId } });
  expect(response.status).toBe(200);
  return postId;
}

/** The spans of the trace of the first generation, once the request, the workflow and the activity are all in. */
function generationTrace() {
  const firstActivity = receiver.spans.find((span) => span.name === 'RunActivity:generatePostImage');
  const spans = receiver.spans.filter((span) => span.traceId === firstActivity?.traceId);
  const named = (service: string, name: string) => {
    const span = spans.find((candidate) => candidate.service === service && candidate.name === name);
    if (!span) throw new Error(`no ${service} span ${name} in the trace: ${names(spans)}`);
    return span;
  };
  return {
    trace: spans,
    request: named('content-service-api', 'POST /api/v1/posts/{id}/generate'),
    start: named('content-service-api', 'StartWorkflow:generatePost'),
    run: named('content-service-worker', 'RunWorkflow:generatePost'),
    activity: named('content-service-worker', 'RunActivity:generatePostImage'),
  };
}

function names(spans: ReceivedSpan[]): string {
  return spans.map((span) => `${span.service}/${span.name}`).join(', ');
}

function logLine(output: string, message: string): Record<string, unknown> {
  const line = output
    .split('\n')
    .filter((text) => text.startsWith('{'))
    .map((text) => JSON.parse(text) as Record<string, unknown>)
    .find((entry) => entry.msg === message);
  if (!line) throw new Error(`no log line "${message}" yet`);
  return line;
}
