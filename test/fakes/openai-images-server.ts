import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { startHttpsServer } from './https-server.ts';
import { loadOpenApiContract, type ApiContract } from './openapi-contract.ts';

// A local stand-in for OpenAI's images API, `POST /v1/images/generations`
// (https://platform.openai.com/docs/api-reference/images/create), and for Azure OpenAI's form of it,
// `POST /openai/deployments/{deployment}/images/generations?api-version=...` with an `api-key` header
// (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference#image-generation). Every request body is checked
// against OpenAI's own OpenAPI description (test/fixtures/platform-apis/openai); what that description leaves to its
// prose (each model's sizes, the parameters only some models take) is checked as the reference page words it, and
// refused with OpenAI's error shape `{ error: { message, type, param, code } }`. HTTPS, so that an image answered as
// a URL passes the public-address guard's https rule.

/** One scripted answer for the next generation; generations beyond the script get the default success. */
type OpenAIScriptedResponse =
  /** Success, as base64 or as a URL on this server whatever was asked, optionally with a revised prompt. */
  | { kind: 'image'; as?: 'b64_json' | 'url'; revisedPrompt?: string }
  /** 400 with the code OpenAI gives a prompt its safety system refuses. */
  | { kind: 'content-policy'; code?: 'content_policy_violation' | 'moderation_blocked' }
  /** An error in OpenAI's shape; `retryAfter` becomes Retry-After. */
  | { status: number; code?: string; type?: string; message?: string; retryAfter?: string };

type OpenAIImagesRequest = { path: string; query: URLSearchParams; headers: IncomingHttpHeaders; body: Record<string, unknown> };

export type OpenAIImagesServer = {
  /** OPENAI_IMAGES_URL for OpenAI's form (`…/v1`). */
  url: string;
  /** OPENAI_IMAGES_URL for Azure's form (the resource endpoint). */
  azureUrl: string;
  apiKey: string;
  /** Every generation request received, in order (image downloads are not). */
  requests: OpenAIImagesRequest[];
  /** Image downloads received (the paths of `url` answers). */
  downloads: string[];
  script(responses: OpenAIScriptedResponse[]): void;
  close(): Promise<void>;
};

export type OpenAIImagesServerOptions = {
  apiKey?: string;
  /** Azure: the deployment this resource has, and the model it runs. */
  azureDeployment?: { name: string; model: string };
  /** The sizes a model OpenAI does not document takes (another server's); any size when not given. */
  otherModelSizes?: string[];
  /** Plain HTTP, for the bench (which has no test CA); its `url` answers then fail the public-address guard's https rule. */
  plainHttp?: boolean;
};

async function startPlainHttpServer(handler: RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      }),
  };
}

// Each model's sizes as the reference page lists them; `auto` is the GPT image models' default.
const documentedSizes: Array<{ model: RegExp; sizes: string[] }> = [
  { model: /^dall-e-2$/, sizes: ['256x256', '512x512', '1024x1024'] },
  { model: /^dall-e-3$/, sizes: ['1024x1024', '1792x1024', '1024x1792'] },
  { model: /^gpt-image-/, sizes: ['auto', '1024x1024', '1536x1024', '1024x1536'] },
];
const gptImageOnly = ['output_format', 'output_compression', 'background', 'moderation', 'partial_images', 'stream'];

let contract: ApiContract | undefined;
const pngCache = new Map<string, Promise<Buffer>>();

function pngOfSize(size: string): Promise<Buffer> {
  let png = pngCache.get(size);
  if (!png) {
    const [width = 1024, height = 1024] = size.split('x').map(Number);
    png = sharp({ create: { width, height, channels: 3, background: '#6b3a8f' } })
      .png()
      .toBuffer();
    pngCache.set(size, png);
  }
  return png;
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

function sendError(
  response: ServerResponse,
  status: number,
  error: { message: string; type?: string; param?: string | null; code?: string | null },
  headers?: Record<string, string>,
) {
  sendJson(
    response,
    status,
    { error: { message: error.message, type: error.type ?? 'invalid_request_error', param: error.param ?? null, code: error.code ?? null } },
    headers,
  );
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  if (chunks.length === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return null;
  }
}

/** What OpenAI refuses that its description leaves to prose: a size the model does not take, a parameter it does not take. */
function modelProblem(
  model: string,
  body: Record<string, unknown>,
  otherModelSizes: string[] | undefined,
): { message: string; param: string; code: string } | undefined {
  const family = model.startsWith('gpt-image-') ? 'gpt-image' : model.startsWith('dall-e-') ? 'dall-e' : 'other';
  if (family === 'gpt-image' && body.response_format !== undefined) {
    return { message: "Unknown parameter: 'response_format'.", param: 'response_format', code: 'unknown_parameter' };
  }
  if (family === 'dall-e') {
    const unknown = gptImageOnly.find((name) => body[name] !== undefined);
    if (unknown) return { message: `Unknown parameter: '${unknown}'.`, param: unknown, code: 'unknown_parameter' };
  }
  if (model === 'dall-e-3' && typeof body.n === 'number' && body.n !== 1) {
    return { message: 'You must provide n=1 for this model.', param: 'n', code: 'invalid_value' };
  }
  const sizes = documentedSizes.find((entry) => entry.model.test(model))?.sizes ?? otherModelSizes;
  const size = typeof body.size === 'string' ? body.size : family === 'gpt-image' ? 'auto' : '1024x1024';
  if (sizes && !sizes.includes(size)) {
    return {
      message: `Invalid value: '${size}'. Supported values are: ${sizes.map((entry) => `'${entry}'`).join(', ')}.`,
      param: 'size',
      code: 'invalid_value',
    };
  }
  return undefined;
}

/** Starts the fake on 127.0.0.1 (port 0); it takes only its key, as `Bearer` (OpenAI) or `api-key` (Azure). */
export async function startOpenAIImagesServer(options: OpenAIImagesServerOptions = {}): Promise<OpenAIImagesServer> {
  contract ??= loadOpenApiContract(new URL('../fixtures/platform-apis/openai/openapi.json', import.meta.url).pathname);
  const apiContract = contract;
  const apiKey = options.apiKey ?? `sk-proj-test-${randomUUID()}`;
  const requests: OpenAIImagesRequest[] = [];
  const downloads: string[] = [];
  const scripted: OpenAIScriptedResponse[] = [];
  const images = new Map<string, Buffer>();
  let base = '';

  async function generate(request: IncomingMessage, response: ServerResponse, url: URL, azure: boolean, model: string | undefined) {
    const json = await readJson(request);
    const body = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
    requests.push({ path: url.pathname, query: url.searchParams, headers: request.headers, body });

    if (azure) {
      if (request.headers['api-key'] !== apiKey) {
        return sendJson(response, 401, {
          error: {
            code: '401',
            message:
              'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
          },
        });
      }
    } else if (request.headers.authorization !== `Bearer ${apiKey}`) {
      const given = request.headers.authorization?.replace(/^Bearer /, '') ?? '';
      const shown = given ? `${given.slice(0, 3)}*****${given.slice(-4)}` : '';
      return sendError(response, 401, {
        message: given
          ? `Incorrect API key provided: ${shown}. You can find your API key at https://platform.openai.com/account/api-keys.`
          : "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        code: given ? 'invalid_api_key' : null,
      });
    }
    if (json === null || !(request.headers['content-type'] ?? '').startsWith('application/json')) {
      return sendError(response, 400, { message: 'We could not parse the JSON body of your request.' });
    }
    const problems = apiContract.problemsOf({ method: 'POST', path: '/images/generations', query: new URLSearchParams(), json });
    if (problems.length > 0) return sendError(response, 400, { message: problems.join('; ') });
    if (body.prompt === '') {
      return sendError(response, 400, {
        message: "Invalid 'prompt': empty string. Expected a string with minimum length 1, but got an empty string instead.",
        param: 'prompt',
        code: 'empty_string',
      });
    }
    const chosen = model ?? (typeof body.model === 'string' ? body.model : 'dall-e-2');
    const problem = modelProblem(chosen, body, options.otherModelSizes);
    if (problem) return sendError(response, 400, problem);

    const next = scripted.shift();
    if (next && 'status' in next) {
      return sendError(
        response,
        next.status,
        {
          message: next.message ?? `The fake answered ${next.status}.`,
          type: next.type ?? (next.status >= 500 ? 'server_error' : 'invalid_request_error'),
          code: next.code ?? null,
        },
        next.retryAfter ? { 'retry-after': next.retryAfter } : {},
      );
    }
    if (next?.kind === 'content-policy') {
      return sendError(response, 400, {
        message: 'Your request was rejected as a result of our safety system. Your prompt may contain text that is not allowed by our safety system.',
        code: next.code ?? 'content_policy_violation',
        param: null,
      });
    }

    const size = typeof body.size === 'string' && body.size !== 'auto' ? body.size : '1024x1024';
    const png = await pngOfSize(size);
    const gptImage = chosen.startsWith('gpt-image-');
    // GPT image models always answer base64; the others what was asked, by default a URL.
    const shape = next?.as ?? (gptImage ? 'b64_json' : body.response_format === 'b64_json' ? 'b64_json' : 'url');
    const revisedPrompt = next?.revisedPrompt ?? (chosen === 'dall-e-3' ? `A vivid, detailed picture: ${String(body.prompt)}` : undefined);
    let image: Record<string, string>;
    if (shape === 'url') {
      const id = `img-${randomUUID()}.png`;
      images.set(id, png);
      image = { url: `${base}/files/${id}` };
    } else image = { b64_json: png.toString('base64') };
    if (revisedPrompt) image.revised_prompt = revisedPrompt;
    const created = Math.floor(Date.now() / 1000);
    return sendJson(
      response,
      200,
      gptImage
        ? {
            created,
            data: [image],
            background: 'opaque',
            output_format: 'png',
            size,
            quality: 'high',
            usage: { total_tokens: 100, input_tokens: 50, output_tokens: 50, input_tokens_details: { text_tokens: 50, image_tokens: 0 } },
          }
        : { created, data: [image] },
    );
  }

  async function answer(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? '/', base);
    const file = /^\/files\/([\w.-]+)$/.exec(url.pathname)?.[1];
    if (request.method === 'GET' && file) {
      downloads.push(url.pathname);
      const png = images.get(file);
      if (!png) return sendError(response, 404, { message: 'The image has expired.' });
      response.writeHead(200, { 'content-type': 'image/png', 'content-length': String(png.length) });
      return response.end(png);
    }
    if (request.method === 'POST' && url.pathname === '/v1/images/generations') return generate(request, response, url, false, undefined);
    const deployment = /^\/openai\/deployments\/([^/]+)\/images\/generations$/.exec(url.pathname)?.[1];
    if (request.method === 'POST' && deployment !== undefined) {
      if (!url.searchParams.get('api-version')) return sendJson(response, 404, { error: { code: '404', message: 'Resource not found' } });
      if (decodeURIComponent(deployment) !== options.azureDeployment?.name) {
        return sendJson(response, 404, {
          error: {
            code: 'DeploymentNotFound',
            message:
              'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.',
          },
        });
      }
      return generate(request, response, url, true, options.azureDeployment.model);
    }
    sendError(response, 404, { message: `Invalid URL (${request.method ?? 'GET'} ${url.pathname})`, code: null });
  }

  const handler: RequestListener = (request, response) => {
    answer(request, response).catch((error: unknown) => {
      console.error('openai images fake failed', error);
      response.destroy();
    });
  };
  const server = options.plainHttp ? await startPlainHttpServer(handler) : await startHttpsServer(handler);
  base = server.url;

  return {
    url: `${server.url}/v1`,
    azureUrl: server.url,
    apiKey,
    requests,
    downloads,
    script(responses) {
      scripted.push(...responses);
    },
    close: () => server.close(),
  };
}
