import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

// A platform's own machine-readable description of its API (OpenAPI 3.0 or 3.1, vendored under
// test/fixtures/platform-apis), used by a fake to check every request it receives: the path and method must be an
// operation of the description, its declared query parameters must match their schemas, and its JSON body must
// match the operation's request body schema. A fake answers a request that breaks the contract the way its platform
// answers a malformed request, and the problems name what broke it.

type Schema = Record<string, unknown>;
type Parameter = { name: string; in: string; required?: boolean; schema?: Schema; $ref?: string };
type Operation = { parameters?: Parameter[]; requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }>; $ref?: string } };

export type ContractRequest = {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The request's JSON body, parsed (for multipart, the JSON part the platform documents); undefined when none was sent. */
  json: unknown;
};

/** A platform's description of its API, as a fake checks requests against it (this file, discovery-contract.ts). */
export type ApiContract = {
  /** What is wrong with the request by the description; empty when nothing is. */
  problemsOf(request: ContractRequest): string[];
};

const pointer = (...segments: string[]) => segments.map((segment) => segment.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/** Every `format` a description uses, so that those ajv-formats does not know are accepted rather than refused. */
function formatsIn(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) formatsIn(item, found);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key === 'format' && typeof item === 'string') found.add(item);
      else formatsIn(item, found);
    }
  }
  return found;
}

/** A query parameter's text as its schema's type (arrays comma-separated, OpenAPI's `form` style without explode). */
function queryValueOf(text: string, schema: Schema | undefined): unknown {
  const type = schema?.type;
  if (type === 'array') return text.split(',').map((item) => queryValueOf(item, schema?.items as Schema | undefined));
  if (type === 'integer' || type === 'number') return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
  if (type === 'boolean') return text === 'true' ? true : text === 'false' ? false : text;
  return text;
}

/**
 * OpenAPI 3.0's `nullable: true`, which some 3.1 descriptions still use (OpenAI's, beside `anyOf`), as 3.1 says it:
 * null is one more allowed value. Ajv reads `nullable` only beside a `type`, and refuses to compile it elsewhere.
 */
function nullableAsNull(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(nullableAsNull);
  if (typeof value !== 'object' || value === null) return value;
  const { nullable, ...rest } = Object.fromEntries<unknown>(Object.entries(value).map(([key, item]) => [key, nullableAsNull(item)]));
  if (nullable !== true) return nullable === undefined ? rest : { ...rest, nullable };
  if (typeof rest.type === 'string') return { ...rest, type: [rest.type, 'null'] };
  if (Array.isArray(rest.anyOf)) return { ...rest, anyOf: [...(rest.anyOf as unknown[]), { type: 'null' }] };
  return { anyOf: [rest, { type: 'null' }] };
}

export function loadOpenApiContract(file: string): ApiContract {
  const read = JSON.parse(readFileSync(file, 'utf8')) as { openapi: string; paths: Record<string, Record<string, Operation>> };
  const document = (read.openapi.startsWith('3.1') ? nullableAsNull(read) : read) as typeof read;
  const options = { strict: false, allErrors: true };
  const ajv = document.openapi.startsWith('3.1') ? new Ajv2020(options) : new Ajv(options);
  addFormats.default(ajv);
  for (const format of formatsIn(document)) if (!ajv.formats[format]) ajv.addFormat(format, true);
  ajv.addSchema(document, 'api');
  const compiled = new Map<string, ValidateFunction>();
  const validatorAt = (at: string) => {
    let validate = compiled.get(at);
    if (!validate) compiled.set(at, (validate = ajv.compile({ $ref: `api#/${at}` })));
    return validate;
  };
  const resolve = <T extends { $ref?: string }>(value: T): { value: T; at: string | undefined } => {
    if (!value.$ref?.startsWith('#/')) return { value, at: undefined };
    const at = value.$ref.slice(2);
    const found = at.split('/').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key.replaceAll('~1', '/').replaceAll('~0', '~')], document);
    return { value: found as T, at };
  };
  // Templates with fewer parameters first, so `/2/media/upload/initialize` wins over `/2/media/upload/{id}/...`.
  const templates = Object.keys(document.paths)
    .map((template) => ({ template, pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`) }))
    .sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
  const errorsOf = (validate: ValidateFunction, where: string) =>
    (validate.errors ?? []).map(
      (error) =>
        `${where}${error.instancePath} ${error.message ?? 'is invalid'}${error.params && 'additionalProperty' in error.params ? ` (${String(error.params.additionalProperty)})` : ''}`,
    );

  return {
    problemsOf({ method, path, query, json }) {
      const found = templates.find(({ pattern }) => pattern.test(path));
      const operation = found ? document.paths[found.template]?.[method.toLowerCase()] : undefined;
      if (!found || !operation) return [`${method} ${path} is no operation of the API description`];
      const base = pointer('paths', found.template, method.toLowerCase());
      const problems: string[] = [];
      for (const [index, declared] of (operation.parameters ?? []).entries()) {
        const { value: parameter, at } = resolve(declared);
        if (parameter.in !== 'query') continue;
        const text = query.get(parameter.name);
        if (text === null) {
          if (parameter.required) problems.push(`query parameter ${parameter.name} is required`);
          continue;
        }
        if (!parameter.schema) continue;
        const validate = validatorAt(`${at ?? `${base}/parameters/${index}`}/schema`);
        if (!validate(queryValueOf(text, parameter.schema))) problems.push(...errorsOf(validate, `query parameter ${parameter.name}`));
      }
      if (operation.requestBody) {
        const { value: body, at } = resolve(operation.requestBody);
        const bodyAt = at ?? `${base}/requestBody`;
        if (json === undefined) {
          if (body.required) problems.push('the request body is required');
        } else if (body.content?.['application/json']?.schema) {
          const validate = validatorAt(`${bodyAt}/${pointer('content', 'application/json', 'schema')}`);
          if (!validate(json)) problems.push(...errorsOf(validate, 'body'));
        }
      } else if (json !== undefined) problems.push('the operation takes no request body');
      return problems;
    },
  };
}
