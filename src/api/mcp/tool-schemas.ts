import { dereferencedOpenApiDocument } from '../openapi-document.ts';

/** A JSON Schema (draft 2020-12 / draft-07 as MCP clients read them), built from openapi.yaml. */
export type JsonSchema = Record<string, unknown>;

type Parameter = { name: string; in: string; required?: boolean; description?: string; schema: JsonSchema };
type Operation = {
  operationId: string;
  summary?: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
};
type Spec = { paths: Record<string, Record<string, unknown>>; components: Record<string, Record<string, unknown>> };

/** One operation of openapi.yaml, with its path-level parameters and every `$ref` resolved. */
export type SpecOperation = { method: string; path: string; operation: Operation };

/** openapi.yaml as the tools read it: operations by operationId, and component schemas, every `$ref` resolved. */
export type ToolSpec = { operation: (operationId: string) => SpecOperation; schema: (name: string) => JsonSchema };

/**
 * openapi.yaml read once (at start-up: stateless MCP builds a server per request, never the tool list), its local
 * `$ref`s resolved.
 */
export function loadToolSpec(specPath: string): ToolSpec {
  const resolved = dereferencedOpenApiDocument(specPath) as Spec;
  const operations = new Map<string, SpecOperation>();
  for (const [path, item] of Object.entries(resolved.paths)) {
    const shared = (item.parameters ?? []) as Parameter[];
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const operation = item[method] as Operation | undefined;
      if (!operation) continue;
      operations.set(operation.operationId, { method, path, operation: { ...operation, parameters: [...shared, ...(operation.parameters ?? [])] } });
    }
  }
  return {
    operation: (operationId) => {
      const found = operations.get(operationId);
      if (!found) throw new Error(`openapi.yaml has no operation ${operationId}`);
      return found;
    },
    schema: (name) => {
      const found = resolved.components.schemas?.[name] as JsonSchema | undefined;
      if (!found) throw new Error(`openapi.yaml has no schema ${name}`);
      return toJsonSchema(found);
    },
  };
}

/**
 * A tool's input: the operation's path and query parameters and its JSON body's members side by side (the names never
 * clash in openapi.yaml), as one object schema. Headers (the Idempotency-Key) are the tool's own business.
 */
export function inputSchemaOf({ operation }: SpecOperation, options: { omit?: string[] } = {}): JsonSchema {
  const omitted = new Set(options.omit ?? []);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const parameter of operation.parameters ?? []) {
    if ((parameter.in !== 'path' && parameter.in !== 'query') || omitted.has(parameter.name)) continue;
    properties[parameter.name] = { ...toJsonSchema(parameter.schema), ...(parameter.description && { description: parameter.description.trim() }) };
    if (parameter.required) required.push(parameter.name);
  }
  const body = operation.requestBody?.content['application/json']?.schema;
  if (body) {
    const schema = toJsonSchema(body) as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, member] of Object.entries(schema.properties ?? {})) if (!omitted.has(name)) properties[name] = member;
    for (const name of schema.required ?? []) if (!omitted.has(name)) required.push(name);
  }
  return { type: 'object', properties, ...(required.length > 0 && { required }), additionalProperties: false };
}

/** The JSON schema of the operation's first 2xx answer (openapi.yaml lists 200 before 202). */
export function responseSchemaOf({ operation }: SpecOperation): JsonSchema {
  const success = Object.entries(operation.responses).find(([status]) => status.startsWith('2'));
  const schema = success?.[1].content?.['application/json']?.schema;
  if (!schema) throw new Error(`${operation.operationId} answers no JSON body`);
  return toJsonSchema(schema);
}

/** The schema of one of the operation's parameters, e.g. the Idempotency-Key header's. */
export function parameterSchemaOf({ operation }: SpecOperation, name: string): JsonSchema {
  const parameter = (operation.parameters ?? []).find((candidate) => candidate.name === name);
  if (!parameter) throw new Error(`${operation.operationId} has no parameter ${name}`);
  return toJsonSchema(parameter.schema);
}

/** MCP's structured content is an object: an array answer is given as `{ items: [...] }`. */
export function itemsSchemaOf(items: JsonSchema, description: string): JsonSchema {
  return { type: 'object', properties: { items }, required: ['items'], description };
}

const specOnly = new Set(['example', 'examples', 'discriminator', 'xml', 'externalDocs', 'nullable']);

/**
 * An OpenAPI 3.0 schema as plain JSON Schema: `nullable: true` becomes a `null` type (MCP clients validate answers
 * with stock JSON Schema validators, which do not know `nullable`), and documentation-only keywords go.
 */
function toJsonSchema(schema: JsonSchema): JsonSchema {
  const converted: JsonSchema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (specOnly.has(keyword)) continue;
    if (keyword === 'properties')
      converted.properties = Object.fromEntries(Object.entries(value as Record<string, JsonSchema>).map(([name, member]) => [name, toJsonSchema(member)]));
    else if (keyword === 'items' || keyword === 'additionalProperties' || keyword === 'not')
      converted[keyword] = typeof value === 'object' && value !== null ? toJsonSchema(value as JsonSchema) : value;
    else if (keyword === 'oneOf' || keyword === 'anyOf' || keyword === 'allOf') converted[keyword] = (value as JsonSchema[]).map(toJsonSchema);
    else converted[keyword] = value;
  }
  if (schema.nullable !== true) return converted;
  if (typeof converted.type === 'string') {
    converted.type = [converted.type, 'null'];
    if (Array.isArray(converted.enum)) converted.enum = [...(converted.enum as unknown[]), null];
    return converted;
  }
  return { anyOf: [converted, { type: 'null' }] };
}
