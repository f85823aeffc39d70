import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { connectTemporalClient } from '../../../src/adapters/temporal/connect.ts';
import { startTemporalTlsProxy, type TemporalTlsProxy } from '../../fakes/temporal-tls-proxy.ts';
import { createDevCertificates, createDevClientCertificate, type DevCertificates } from '../../infra/dev-certificates.ts';
import { startTestApp, type TestApp } from '../../support/test-app.ts';
import { testConfig } from '../../support/test-config.ts';
import { createTestWorkspace } from '../../support/workspaces.ts';
import { infrastructure } from '../../support/infrastructure.ts';

// The api and the worker reach Temporal over mutual TLS with an API key, as on Temporal Cloud: a proxy on loopback
// asks for a client certificate from the test CA and a bearer key, and forwards what passes to the run's dev server.

const apiKey = 'temporal-cloud-api-key-for-tests';
const directory = mkdtempSync(join(tmpdir(), 'temporal-tls-'));
let certificates: DevCertificates;
let client: { certPath: string; keyPath: string };
let proxy: TemporalTlsProxy;

beforeAll(async () => {
  certificates = await createDevCertificates(directory);
  client = await createDevClientCertificate(directory, 'content-service-worker');
  proxy = await startTemporalTlsProxy({ target: infrastructure.temporalAddress, certificates, clientCertificate: true, apiKey });
});
afterAll(async () => {
  await proxy?.close();
  rmSync(directory, { recursive: true, force: true });
});

const tlsSettings = () => ({
  TEMPORAL_ADDRESS: proxy.address,
  TEMPORAL_TLS_CA_PATH: certificates.caCertPath,
  TEMPORAL_TLS_CERT_PATH: client.certPath,
  TEMPORAL_TLS_KEY_PATH: client.keyPath,
  TEMPORAL_API_KEY: apiKey,
});

describe('Temporal over mutual TLS with an API key', () => {
  it('when the api and worker are configured for it, then a generation runs end to end through the TLS endpoint', { timeout: 60_000 }, async () => {
    let app: TestApp | undefined;
    try {
      app = await startTestApp(tlsSettings());
      const workspace = await createTestWorkspace(app, 'growth');
      const projectId = (await workspace.client.post<{ id: string }>('/projects', { name: 'Over TLS' })).body.id;
      const postId = (await workspace.client.post<{ id: string }>('/posts', { title: 'Secure', prompt: 'A padlock at dawn', projectId })).body.id;
      const before = proxy.forwarded;
      expect((await workspace.client.post(`/posts/${postId}/generate`)).status).toBe(200);
      expect(proxy.forwarded).toBeGreaterThan(before);
    } finally {
      await app?.stop();
    }
  });

  it('when the client certificate is missing, then connecting fails', async () => {
    const { TEMPORAL_TLS_CERT_PATH: _cert, TEMPORAL_TLS_KEY_PATH: _key, ...withoutCertificate } = tlsSettings();
    // Refused in the handshake, which the client retries until its connect timeout (10 s by default).
    const config = testConfig('postgres://unused/db', { ...withoutCertificate, TEMPORAL_CALL_TIMEOUT_SECONDS: '2' });
    await expect(connectTemporalClient(config.temporal)).rejects.toThrow();
  });

  it('when the API key is wrong, then connecting fails as unauthenticated', async () => {
    const refused = proxy.refused;
    const config = testConfig('postgres://unused/db', { ...tlsSettings(), TEMPORAL_API_KEY: 'not-the-key' });
    const error = await connectTemporalClient(config.temporal).then(
      () => undefined,
      (failure: unknown) => failure as Error,
    );
    expect(String((error?.cause as Error | undefined)?.message)).toMatch(/UNAUTHENTICATED: Request unauthorized/);
    expect(proxy.refused).toBeGreaterThan(refused);
  });

  it('when only half a client certificate or a contradiction is configured, then start-up names the variable', () => {
    const base = { DATABASE_URL: 'postgres://x/y', URL_SIGNING_SECRET: 'x'.repeat(32), ENCRYPTION_KEY: Buffer.alloc(32).toString('base64') };
    expect(() => loadConfig({ ...base, TEMPORAL_TLS_CERT_PATH: '/tmp/cert.pem' })).toThrow(/TEMPORAL_TLS_KEY_PATH/);
    expect(() => loadConfig({ ...base, TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'k' })).toThrow(/TEMPORAL_TLS: is false/);
    expect(loadConfig({ ...base, TEMPORAL_API_KEY: 'k' }).temporal.tls).toEqual({
      caPath: undefined,
      certPath: undefined,
      keyPath: undefined,
      serverName: undefined,
    });
    expect(loadConfig(base).temporal.tls).toBeNull();
  });
});
