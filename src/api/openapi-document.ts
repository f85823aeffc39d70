import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { oncePerKey } from '../common/once-per-key.ts';

/** openapi.yaml as parsed: read once per process by whatever the api derives from it (routes, tools, validation). */
export const readOpenApiDocument = oncePerKey((specPath: string): Record<string, unknown> => parse(readFileSync(specPath, 'utf8')) as Record<string, unknown>);

/**
 * openapi.yaml with every local `$ref` replaced by what it points at (shared, not copied), once per process. A
 * `$ref`'s siblings go with it, as OpenAPI 3.0 says they are ignored.
 */
export const dereferencedOpenApiDocument = oncePerKey((specPath: string): Record<string, unknown> => {
  const spec = readOpenApiDocument(specPath);
  return dereference(spec, spec) as Record<string, unknown>;
});

function dereference(value: unknown, spec: unknown, seen = new Map<string, unknown>()): unknown {
  if (Array.isArray(value)) return value.map((item) => dereference(item, spec, seen));
  if (value === null || typeof value !== 'object') return value;
  const ref = (value as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') {
    const known = seen.get(ref);
    if (known !== undefined) return known;
    const target = ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((node, segment) => (node as Record<string, unknown>)[segment.replace(/~1/g, '/').replace(/~0/g, '~')], spec);
    if (target === undefined) throw new Error(`openapi.yaml: ${ref} resolves to nothing`);
    const resolved = dereference(target, spec, seen);
    seen.set(ref, resolved);
    return resolved;
  }
  return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, dereference(member, spec, seen)]));
}
