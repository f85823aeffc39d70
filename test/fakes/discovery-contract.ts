import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { ApiContract, ContractRequest } from './openapi-contract.ts';

// A Google API's own machine-readable description, its discovery document
// (https://developers.google.com/discovery/v1/reference/apis), vendored under test/fixtures/platform-apis and used by
// a fake as openapi-contract.ts uses an OpenAPI description: the method and path must be a method of the document (or
// the media upload path of one), every query parameter one the document declares for it or for every method, with
// its type and values, the required ones present, and the JSON body must match the method's request schema with no
// field the schema does not name: Google's JSON parser refuses one ("Invalid JSON payload received. Unknown name",
// https://cloud.google.com/apis/design/errors#error_details).

type Parameter = { type?: string; location?: string; required?: boolean; repeated?: boolean; enum?: string[]; pattern?: string };
type Method = {
  id: string;
  httpMethod: string;
  path: string;
  flatPath?: string;
  parameters?: Record<string, Parameter>;
  request?: { $ref: string };
  mediaUpload?: { protocols?: Record<string, { path: string }> };
};
type Resource = { methods?: Record<string, Method>; resources?: Record<string, Resource> };
type DiscoverySchema = {
  type?: string;
  $ref?: string;
  properties?: Record<string, DiscoverySchema>;
  items?: DiscoverySchema;
  additionalProperties?: DiscoverySchema;
  enum?: string[];
  format?: string;
};
type DiscoveryDocument = {
  servicePath: string;
  parameters: Record<string, Parameter>;
  schemas: Record<string, DiscoverySchema>;
  resources: Record<string, Resource>;
};
type Schema = Record<string, unknown>;

/** A discovery schema as JSON Schema: objects closed to names they do not declare (unless they are maps). */
function jsonSchemaOf(schema: DiscoverySchema): Schema {
  if (schema.$ref) return { $ref: `#/definitions/${schema.$ref}` };
  switch (schema.type) {
    case 'object': {
      const properties = Object.fromEntries(Object.entries(schema.properties ?? {}).map(([name, property]) => [name, jsonSchemaOf(property)]));
      const additional = schema.additionalProperties ? jsonSchemaOf(schema.additionalProperties) : schema.properties === undefined;
      return { type: 'object', properties, additionalProperties: additional };
    }
    case 'array':
      return { type: 'array', items: schema.items ? jsonSchemaOf(schema.items) : {} };
    case 'string':
      // 64-bit integers travel as strings in Google's JSON.
      if (schema.format === 'int64' || schema.format === 'uint64') return { type: 'string', pattern: '^-?\\d+$' };
      return { type: 'string', ...(schema.enum ? { enum: schema.enum } : {}), ...(schema.format === 'date-time' ? { format: 'date-time' } : {}) };
    case 'integer':
    case 'number':
    case 'boolean':
      return { type: schema.type };
    default:
      return {};
  }
}

function methodsOf(resources: Record<string, Resource>): Method[] {
  return Object.values(resources).flatMap((resource) => [...Object.values(resource.methods ?? {}), ...methodsOf(resource.resources ?? {})]);
}

/** A path template (`youtube/v3/videos`, `{+name}`, `{id}`) as a pattern for request paths. */
function patternOf(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace(/\{\+[^}]+\}/g, '.+').replace(/\{[^}]+\}/g, '[^/]+')}$`);
}

/** What is wrong with one query parameter's value by its declaration, if anything. */
function valueProblem(name: string, text: string, parameter: Parameter): string | undefined {
  // A repeated parameter may also be sent as one comma-separated value (YouTube's `part=snippet,status`).
  const values = parameter.repeated ? text.split(',') : [text];
  for (const value of values) {
    if (parameter.type === 'boolean' && value !== 'true' && value !== 'false') return `query parameter ${name} must be true or false, not ${value}`;
    if ((parameter.type === 'integer' || parameter.type === 'number') && !/^-?\d+(\.\d+)?$/.test(value))
      return `query parameter ${name} must be a number, not ${value}`;
    if (parameter.enum && !parameter.enum.includes(value)) return `query parameter ${name} must be one of ${parameter.enum.join(', ')}, not ${value}`;
    if (parameter.pattern && !new RegExp(parameter.pattern).test(value)) return `query parameter ${name} does not match ${parameter.pattern}`;
  }
  return undefined;
}

export function loadDiscoveryContract(file: string): ApiContract {
  const document = JSON.parse(readFileSync(file, 'utf8')) as DiscoveryDocument;
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ definitions: Object.fromEntries(Object.entries(document.schemas).map(([name, schema]) => [name, jsonSchemaOf(schema)])) }, 'api');
  const compiled = new Map<string, ValidateFunction>();
  const validatorOf = (name: string) => {
    let validate = compiled.get(name);
    if (!validate) compiled.set(name, (validate = ajv.compile({ $ref: `api#/definitions/${name}` })));
    return validate;
  };
  const routes = methodsOf(document.resources).flatMap((method) =>
    [`/${document.servicePath}${method.flatPath ?? method.path}`, ...Object.values(method.mediaUpload?.protocols ?? {}).map((protocol) => protocol.path)].map(
      (template) => ({ method, pattern: patternOf(template) }),
    ),
  );

  return {
    problemsOf(request: ContractRequest) {
      const route = routes.find(({ method, pattern }) => method.httpMethod === request.method && pattern.test(request.path));
      if (!route) return [`${request.method} ${request.path} is not a method of the API`];
      const { method } = route;
      const parameters = { ...document.parameters, ...method.parameters };
      const problems: string[] = [];
      for (const [name, value] of request.query) {
        const parameter = parameters[name];
        const problem = parameter?.location === 'query' ? valueProblem(name, value, parameter) : `query parameter ${name} is not one ${method.id} takes`;
        if (problem) problems.push(problem);
      }
      for (const [name, parameter] of Object.entries(method.parameters ?? {})) {
        if (parameter.required && parameter.location === 'query' && !request.query.has(name)) problems.push(`query parameter ${name} is required`);
      }
      if (request.json !== undefined) {
        if (!method.request) problems.push(`${method.id} takes no body`);
        else {
          const validate = validatorOf(method.request.$ref);
          if (!validate(request.json)) {
            for (const error of validate.errors ?? []) {
              const extra = error.params && 'additionalProperty' in error.params ? ` (${String(error.params.additionalProperty)})` : '';
              problems.push(`body${error.instancePath} ${error.message ?? 'is invalid'}${extra}`);
            }
          }
        }
      }
      return problems;
    },
  };
}
