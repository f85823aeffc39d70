import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { specPath } from '../../src/api/app.ts';
import { eventTypes } from '../../src/adapters/database/entities/workspace-event.ts';
import { socialPlatforms } from '../../src/adapters/social/social-platforms.ts';
import { problemTypes } from '../../src/common/errors/app-error.ts';

type Operation = { operationId: string; responses: Record<string, { $ref?: string; content?: Record<string, unknown> }> };
const spec = parse(readFileSync(specPath, 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
  components: {
    responses: Record<string, { content: Record<string, { schema: { $ref: string } }> }>;
    schemas: { Problem: { properties: { type: { enum: string[] } } } };
  };
};
const methods = ['get', 'post', 'put', 'delete', 'patch'];
const operations = Object.entries(spec.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => methods.includes(method))
    .map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, operation })),
);

// The 43 endpoints of the product specification, plus documented extensions.
const specified = [
  'GET /posts',
  'POST /posts',
  'GET /posts/{id}',
  'GET /posts/project/{projectId}',
  'PUT /posts/{id}',
  'DELETE /posts/{id}',
  'POST /posts/{id}/generate',
  'POST /posts/{id}/render',
  'POST /posts/{id}/publish',
  'POST /posts/{id}/schedule',
  'POST /posts/{id}/publish-social',
  'GET /posts/{id}/publish-targets',
  'GET /posts/{id}/download',
  'GET /posts/{id}/versions',
  'POST /posts/{id}/versions/{versionId}/restore',
  'GET /projects',
  'POST /projects',
  'GET /projects/{id}',
  'PUT /projects/{id}',
  'POST /projects/{id}/cover',
  'DELETE /projects/{id}/cover',
  'DELETE /projects/{id}',
  'GET /brandkits',
  'POST /brandkits',
  'GET /brandkits/{id}',
  'PUT /brandkits/{id}',
  'DELETE /brandkits/{id}',
  'GET /schedules',
  'POST /schedules',
  'GET /schedules/{id}',
  'PUT /schedules/{id}',
  'DELETE /schedules/{id}',
  'GET /webhooks',
  'POST /webhooks',
  'PUT /webhooks/{id}',
  'DELETE /webhooks/{id}',
  'GET /video/jobs/{jobId}',
  'GET /video/presign/{postId}',
  'GET /usage/activity',
  'GET /api-keys',
  'POST /api-keys',
  'DELETE /api-keys/{id}',
  'POST /api-keys/{id}/regenerate',
];
const extensions = [
  'GET /workspace',
  'PATCH /workspace',
  'GET /webhooks/{id}/deliveries',
  'POST /webhooks/{id}/test',
  'POST /webhooks/{id}/deliveries/{deliveryId}/redeliver',
  'GET /social-connections',
  'POST /social-connections',
  'GET /social-connections/{id}',
  'DELETE /social-connections/{id}',
  'PATCH /social-connections/{id}',
  'GET /social-connections/{id}/destinations',
  'GET /social-platforms',
  'POST /social-connections/authorizations',
  'POST /social-connections/{id}/verify',
];

describe('openapi.yaml', () => {
  it('when read, then it has every operation of the specification and the documented extensions, no more', () => {
    expect(specified).toHaveLength(43);
    expect(operations.map((operation) => operation.key).sort()).toEqual([...specified, ...extensions].sort());
  });

  it('when read, then operation ids are unique', () => {
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('when read, then every error answer of every operation is a Problem document', () => {
    for (const { key, operation } of operations) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        const resolved = response.$ref ? spec.components.responses[response.$ref.split('/').pop()!] : response;
        const schema = (resolved?.content?.['application/problem+json'] as { schema?: { $ref: string } } | undefined)?.schema;
        expect(schema?.$ref, `${key} ${status}`).toBe('#/components/schemas/Problem');
      }
      for (const status of ['401', '429', '500']) expect(operation.responses[status], `${key} ${status}`).toBeDefined();
    }
  });

  it('when read, then deletes answer 204 and creates answer 201', () => {
    for (const { key, operation } of operations) {
      if (key.startsWith('DELETE')) expect(Object.keys(operation.responses), key).toContain('204');
      if (/^create[A-Z]/.test(operation.operationId)) expect(Object.keys(operation.responses), key).toContain('201');
    }
  });
});

describe('problem types', () => {
  it('when compared with the code, then openapi.yaml lists exactly the problem types the service can send', () => {
    const documented = spec.components.schemas.Problem.properties.type.enum;
    expect(
      Object.keys(problemTypes)
        .map((code) => `/problems/${code}`)
        .sort(),
    ).toEqual([...documented].sort());
  });

  it('when compared with the documentation table, then every title matches', () => {
    const description = (parse(readFileSync(specPath, 'utf8')) as { info: { description: string } }).info.description;
    for (const [code, { status, title }] of Object.entries(problemTypes)) {
      expect(description).toContain(`| \`/problems/${code}\` | ${status} | ${title} |`);
    }
  });
});

describe('webhook events', () => {
  it('when compared with the code, then the events pattern admits exactly the known event names', () => {
    const schemas = (parse(readFileSync(specPath, 'utf8')) as { components: { schemas: Record<string, { properties: { events: { pattern: string } } }> } })
      .components.schemas;
    for (const name of ['CreateWebhookRequest', 'UpdateWebhookRequest']) {
      const pattern = new RegExp(schemas[name]!.properties.events.pattern, 'u');
      expect(pattern.test(eventTypes.join(', ')), name).toBe(true);
      for (const type of eventTypes) expect(pattern.test(` ${type} `), `${name} ${type}`).toBe(true);
      for (const unknown of ['post.deleted', 'post', 'post.published,post.created', 'webhook.test'])
        expect(pattern.test(unknown), `${name} ${unknown}`).toBe(false);
    }
  });
});

describe('social platforms', () => {
  type Schema = { enum?: string[]; properties?: Record<string, Schema> };
  const schemas = (parse(readFileSync(specPath, 'utf8')) as { components: { schemas: Record<string, Schema> } }).components.schemas;

  it('when compared with the catalogue, then the SocialPlatform enum lists exactly its platforms, in its order', () => {
    expect(schemas.SocialPlatform?.enum).toEqual([...socialPlatforms]);
  });

  it('when a schema narrows `platform` to some platforms (one connection request per platform), then each is in the catalogue', () => {
    const narrowed = Object.entries(schemas).flatMap(([name, schema]) => (schema.properties?.platform?.enum ?? []).map((platform) => ({ name, platform })));
    expect(narrowed.length).toBeGreaterThan(0);
    expect(narrowed.filter(({ platform }) => !(socialPlatforms as readonly string[]).includes(platform))).toEqual([]);
  });
});
