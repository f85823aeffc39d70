import { readFileSync, writeFileSync } from 'node:fs';

// Cuts OpenAI's published OpenAPI description (openai/openai-openapi `openapi.json`, about 3.4 MB) down to what the
// images fake checks: the document's header, the `/images/generations` path as published, and every component it
// refers to, directly or through other components. Nothing inside a kept object is changed.
// Usage: node tools/trim-openai-images-api.ts <openapi.json> <out.json>

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const [source, target] = process.argv.slice(2);
if (!source || !target) throw new Error('usage: node tools/trim-openai-images-api.ts <openapi.json> <out.json>');

const document = JSON.parse(readFileSync(source, 'utf8')) as { [key: string]: Json } & { components: Record<string, Record<string, Json>> };
const keptPaths = ['/images/generations'];
const paths = Object.fromEntries(keptPaths.map((path) => [path, (document.paths as Record<string, Json>)[path] ?? null]));

const kept = new Map<string, Json>();
function follow(value: Json): void {
  if (Array.isArray(value)) for (const item of value) follow(item);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string' && item.startsWith('#/components/') && !kept.has(item)) {
        const [, , section = '', name = ''] = item.split('/');
        const component = document.components[section]?.[name];
        if (component === undefined) throw new Error(`${item} is not in the document`);
        kept.set(item, component);
        follow(component);
      } else follow(item);
    }
  }
}
follow(paths);

const components: Record<string, Record<string, Json>> = {};
for (const [ref, component] of [...kept].sort(([a], [b]) => a.localeCompare(b))) {
  const [, , section = '', name = ''] = ref.split('/');
  (components[section] ??= {})[name] = component;
}
if (document.components.securitySchemes) components.securitySchemes = document.components.securitySchemes;

const trimmed = { openapi: document.openapi, info: document.info, servers: document.servers, security: document.security, paths, components };
writeFileSync(target, `${JSON.stringify(trimmed, null, 2)}\n`);
