import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startApiServer, type ApiServer } from '../../../src/api/server.ts';
import { loadConfig } from '../../../src/config.ts';
import { createWorkspace } from '../../../src/domain/workspaces/create-workspace.ts';
import { findFreePort } from '../../../src/local/embedded/ports.ts';
import { startMastodonServer, type MastodonServer } from '../../fakes/mastodon-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../fakes/webhook-receiver.ts';
import { eventually } from '../../support/eventually.ts';
import { apiClient, type ApiClient } from '../../support/http.ts';
import { scrape } from '../../support/prometheus-text.ts';
import { testConfigEnv } from '../../support/test-config.ts';
import { createTestDatabase } from '../../support/test-database.ts';
import { startWorkerProcess } from '../../support/worker-process.ts';

// The api in this process and `npm run worker` as a real process (its two endpoints are wired in worker/main.ts), on
// one task queue, each scraped over HTTP as Prometheus does. Every metric docs/operations.md lists is asserted by name
// and type, and the ones our code moves are shown to move after real requests, generations, publishes and deliveries.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let api: ApiServer;
let worker: ChildProcess;
let workerMetricsUrl: string;
let temporalMetricsUrl: string;
let mastodon: MastodonServer;
let receiver: WebhookReceiver;
let client: ApiClient;
let apiKey: string;

const authFailuresPerAddress = 3;

beforeAll(async () => {
  database = await createTestDatabase();
  mastodon = await startMastodonServer();
  receiver = await startWebhookReceiver();
  const env = {
    ...testConfigEnv(database.url),
    WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
    SOCIAL_ALLOW_PRIVATE_NETWORKS: 'true',
    RATE_LIMIT_AUTH_FAILURES: String(authFailuresPerAddress),
  };
  api = await startApiServer(loadConfig(env), { validateResponses: true });
  // The SDK's exporter cannot say which port it took, so both of the worker's ports are chosen here. The worker
  // process trusts the run's dev CA (the fakes speak HTTPS) the way an operator's would, through the environment.
  const [workerPort, temporalPort] = [await findFreePort(), await findFreePort()];
  workerMetricsUrl = `http://127.0.0.1:${workerPort}/metrics`;
  temporalMetricsUrl = `http://127.0.0.1:${temporalPort}/metrics`;
  worker = (
    await startWorkerProcess({
      ...env,
      NODE_EXTRA_CA_CERTS: inject('devCaCertPath'),
      WORKER_METRICS_PORT: String(workerPort),
      TEMPORAL_METRICS_PORT: String(temporalPort),
    })
  ).process;
  apiKey = (await createWorkspace(api.services.orm, { name: 'Metrics', plan: 'growth' })).apiKey;
  client = apiClient(api.url, apiKey);
});
afterAll(async () => {
  if (worker && worker.exitCode === null) {
    worker.kill('SIGTERM');
    await once(worker, 'exit');
  }
  await api?.stop();
  await mastodon?.close();
  await receiver?.close();
  await database?.drop();
});

// What the "Metrics" section of docs/operations.md lists, with each metric's type.
const apiMetrics = {
  http_request_duration_seconds: 'histogram',
  http_requests_in_flight: 'gauge',
  api_rate_limit_refusals_total: 'counter',
  api_rate_limit_store_failures_total: 'counter',
  process_cpu_seconds_total: 'counter',
  process_resident_memory_bytes: 'gauge',
  nodejs_eventloop_lag_p99_seconds: 'gauge',
  nodejs_heap_size_used_bytes: 'gauge',
  nodejs_gc_duration_seconds: 'histogram',
};
const workerMetrics = {
  webhook_delivery_attempts_total: 'counter',
  post_generations_total: 'counter',
  social_publish_attempts_total: 'counter',
  process_cpu_seconds_total: 'counter',
  process_resident_memory_bytes: 'gauge',
  nodejs_eventloop_lag_p99_seconds: 'gauge',
  nodejs_heap_size_used_bytes: 'gauge',
};
const temporalMetrics = {
  temporal_workflow_task_schedule_to_start_latency_seconds: 'histogram',
  temporal_activity_schedule_to_start_latency_seconds: 'histogram',
  temporal_worker_task_slots_available: 'gauge',
  temporal_worker_task_slots_used: 'gauge',
  temporal_workflow_completed_total: 'counter',
  temporal_activity_execution_failed_total: 'counter',
};

describe('the api /metrics', () => {
  it('when scraped, then it holds every metric the docs list for the api, with its type', async () => {
    const { types } = await scrape(api.metricsUrl);
    for (const [name, type] of Object.entries(apiMetrics)) expect([name, types.get(name)]).toEqual([name, type]);
  });

  it('when requests are answered, then each is timed under its route template, method and status, never under its URL', async () => {
    const id = '018f0000-0000-7000-8000-00000000abcd';
    const before = await scrape(api.metricsUrl);
    const count = (labels: Record<string, string>) => before.value('http_request_duration_seconds_count', labels);
    expect((await client.get(`/posts/${id}`)).status).toBe(404);
    expect((await client.get(`/posts/${id}`, { key: null })).status).toBe(401);
    expect((await fetch(`${api.url}/health`)).status).toBe(200);
    expect((await fetch(`${api.url}/no/such/${id}`)).status).toBe(404);

    const after = await scrape(api.metricsUrl);
    const moved = (labels: Record<string, string>) => after.value('http_request_duration_seconds_count', labels) - count(labels);
    expect(moved({ route: '/api/v1/posts/{id}', method: 'GET', status: '404' })).toBe(1);
    // Refused before any route ran, and still named by its template.
    expect(moved({ route: '/api/v1/posts/{id}', method: 'GET', status: '401' })).toBe(1);
    expect(moved({ route: '/health', method: 'GET', status: '200' })).toBe(1);
    expect(moved({ route: 'unmatched', method: 'GET', status: '404' })).toBe(1);
    expect(after.value('http_request_duration_seconds_bucket', { route: '/api/v1/posts/{id}', status: '404', le: '+Inf' })).toBeGreaterThan(0);
    expect(after.text).not.toContain(id);
    expect(new Set(after.series('http_request_duration_seconds_count').map((labels) => labels.route))).not.toContain(`/api/v1/posts/${id}`);
  });

  it('when a request is still being received, then it is counted in flight until it is answered', async () => {
    const before = (await scrape(api.metricsUrl)).value('http_requests_in_flight');
    // A body announced and not all sent: the request waits in the api for the rest.
    const body = JSON.stringify({ name: 'In flight' });
    const held = request(`${api.url}/api/v1/projects`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(body.length), authorization: `Bearer ${apiKey}` },
    });
    const answered = new Promise<number>((resolveAnswer) => held.once('response', (response) => resolveAnswer(response.resume().statusCode!)));
    held.write(body.slice(0, 5));
    await eventually(async () => expect((await scrape(api.metricsUrl)).value('http_requests_in_flight')).toBe(before + 1));
    held.end(body.slice(5));
    expect(await answered).toBe(201);
    await eventually(async () => expect((await scrape(api.metricsUrl)).value('http_requests_in_flight')).toBe(before));
  });
});

describe('the worker /metrics', () => {
  it(
    'when a post is generated, published to Mastodon and announced to a webhook, and another refused by Mastodon, then the counters and the SDK metrics moved',
    { timeout: 90_000 },
    async () => {
      const projectId = (await client.post<{ id: string }>('/projects', { name: 'Metrics' })).body.id;
      expect((await client.post('/webhooks', { url: receiver.url, events: 'post.published' })).status).toBe(201);
      const mastodonId = (
        await client.post<{ id: string }>('/social-connections', { platform: 'mastodon', instanceUrl: mastodon.url, accessToken: mastodon.token })
      ).body.id;
      const newPost = async () => (await client.post<{ id: string }>('/posts', { title: 'Counted', prompt: 'A lighthouse', projectId })).body.id;

      const published = await newPost();
      expect((await client.post(`/posts/${published}/generate`)).status).toBe(200);
      const publishing = await client.post<Array<{ status: string }>>(`/posts/${published}/publish-social`, { connectionIds: [mastodonId] });
      expect(publishing.body.map((target) => target.status)).toEqual(['Published']);
      await eventually(() => Promise.resolve(expect(receiver.deliveries).toHaveLength(1)));
      // The platform refuses the next one: a final failure of the publishing activity.
      mastodon.script('statuses', [{ status: 422, error: 'Validation failed: Text character limit of 500 exceeded' }]);
      const refusing = await client.post<Array<{ status: string }>>(`/posts/${await newPost()}/publish-social`, { connectionIds: [mastodonId] });
      expect(refusing.body.map((target) => target.status)).toEqual(['Failed']);

      // The delivery is counted once its round is logged, a moment after the receiver answered.
      const ours = await eventually(async () => {
        const scraped = await scrape(workerMetricsUrl);
        expect(scraped.value('webhook_delivery_attempts_total', { outcome: 'delivered' })).toBe(1);
        return scraped;
      });
      for (const [name, type] of Object.entries(workerMetrics)) expect([name, ours.types.get(name)]).toEqual([name, type]);
      // The worker is a process of this test's own: every count is this test's doing.
      expect(ours.value('webhook_delivery_attempts_total')).toBe(1);
      expect(ours.value('post_generations_total', { provider: 'local', outcome: 'succeeded' })).toBe(1);
      expect(ours.value('post_generations_total')).toBe(1);
      expect(ours.value('social_publish_attempts_total', { platform: 'mastodon', outcome: 'succeeded' })).toBe(1);
      expect(ours.value('social_publish_attempts_total', { platform: 'mastodon', outcome: 'refused' })).toBe(1);
      expect(ours.value('social_publish_attempts_total')).toBe(2);
      // Every series exists from the start, at zero.
      expect(
        ours
          .series('webhook_delivery_attempts_total')
          .map((labels) => labels.outcome)
          .sort(),
      ).toEqual(['delivered', 'failed', 'gone', 'not-on-plan', 'unusable']);

      const sdk = await scrape(temporalMetricsUrl);
      for (const [name, type] of Object.entries(temporalMetrics)) expect([name, sdk.types.get(name)]).toEqual([name, type]);
      expect(sdk.value('temporal_workflow_task_schedule_to_start_latency_seconds_count')).toBeGreaterThan(0);
      expect(sdk.value('temporal_activity_schedule_to_start_latency_seconds_count')).toBeGreaterThan(0);
      expect(sdk.value('temporal_activity_execution_failed_total', { activity_type: 'publishToTarget' })).toBe(1);
      expect(sdk.value('temporal_workflow_completed_total', { workflow_type: 'generatePost' })).toBe(1);
      expect(sdk.value('temporal_worker_task_slots_available', { worker_type: 'ActivityWorker' })).toBeGreaterThan(0);
    },
  );
});

describe('rate-limit refusals', () => {
  it('when failed authentications from an address pass the limit, then the refusal is counted under its limit', async () => {
    const before = await scrape(api.metricsUrl);
    const unknownKey = `sk_${'A'.repeat(43)}`;
    for (let attempt = 0; attempt < authFailuresPerAddress; attempt++) expect((await client.get('/workspace', { key: unknownKey })).status).toBe(401);
    expect((await client.get('/workspace', { key: unknownKey })).status).toBe(429);
    const after = await scrape(api.metricsUrl);
    expect(
      after.value('api_rate_limit_refusals_total', { limit: 'auth-failures' }) - before.value('api_rate_limit_refusals_total', { limit: 'auth-failures' }),
    ).toBe(1);
    expect(after.value('api_rate_limit_refusals_total', { limit: 'api-key' })).toBe(before.value('api_rate_limit_refusals_total', { limit: 'api-key' }));
    expect(after.value('http_request_duration_seconds_count', { route: '/api/v1/workspace', status: '429' })).toBe(1);
  });
});
