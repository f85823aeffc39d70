import { postFormats } from '../artwork/post-formats.ts';
import { fetchPublicResource, PublicFetchError } from '../net/public-fetch.ts';
import { fitToFormat } from './fit-to-format.ts';
import type { ImageProvider, ImageRequest } from './image-provider.ts';
import { postToProvider, type ProviderAnswer } from './post-to-provider.ts';
import { defaultSizes, modelOf, nearestSize, type ImageSize } from './openai-image-sizes.ts';
import { promptWithPalette } from './prompt-with-palette.ts';
import { ImageKeyRejectedError, ImageProviderUnavailableError, ImageRateLimitedError, ImageRejectedError } from './provider-errors.ts';
import { redactedWords } from '../../common/redaction/redact-secrets.ts';

// OpenAI's `POST /images/generations` (https://platform.openai.com/docs/api-reference/images/create), which Azure
// OpenAI, Together, DeepInfra, xAI, LocalAI, vLLM-Omni and LiteLLM answer too. One attempt per call: Temporal's retry
// policy owns retrying, with the delays the errors below ask for.

export type OpenAIImagesOptions = {
  /** Up to the version, e.g. https://api.openai.com/v1; for Azure, the resource's endpoint. */
  baseUrl: string;
  apiKey: string;
  model: string;
  /** The sizes the model takes; undefined: OpenAI's list for its models, else a square 1024. */
  sizes: ImageSize[] | undefined;
  /** Azure OpenAI: the deployment goes in the path, the API version in the query, the key in `api-key`. */
  azure: { deployment: string; apiVersion: string } | null;
  /** Development only: an image answered as a URL may be on loopback or a private network. */
  allowPrivateNetworks: boolean;
  /** For the generation call; GPT image models at high quality can take a couple of minutes. */
  timeoutMs?: number;
};

const defaultTimeoutMs = 120_000;
// Fetching an image answered as a URL (OpenAI's blob storage): bounded apart, within the activity's 3 minutes.
const imageFetchTimeoutMs = 30_000;
// A PNG of 1792x1024 is a few MB, a third more as base64 in JSON; a longer answer is cut off and counts as an outage.
const maxAnswerBytes = 48 * 1024 * 1024;
const maxImageBytes = 32 * 1024 * 1024;
// A 429 without Retry-After: about what OpenAI's own SDKs wait before their first retry of a rate limit, doubled.
const defaultRateLimitWaitMs = 10_000;
// OpenAI's codes for a prompt (or a result) its safety system refused; the same prompt is refused again.
const contentPolicyCodes = new Set(['content_policy_violation', 'moderation_blocked']);
const keySetting = 'OPENAI_IMAGES_API_KEY';

type OpenAIError = { message: string; code: string | undefined; type: string | undefined };
type GeneratedImage = { b64_json?: unknown; url?: unknown; revised_prompt?: unknown };

function jsonOf(answer: ProviderAnswer): Record<string, unknown> | undefined {
  try {
    const body: unknown = JSON.parse(answer.body.toString('utf8'));
    return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** `{ error: { message, type, param, code } }`, OpenAI's error shape, or the answer's first bytes when it is not one. */
function errorOf(answer: ProviderAnswer, apiKey: string): OpenAIError {
  const error = jsonOf(answer)?.error as Record<string, unknown> | undefined;
  const text = typeof error?.message === 'string' ? error.message : answer.body.toString('utf8', 0, 2000);
  // A server that echoes the key back (OpenAI's 401 shows its last characters) must not put it into a reason users and
  // logs see; redacted before it is cut short, so no part of the key survives the cut.
  const message = redactedWords(text.trim(), [apiKey], 300);
  const code = typeof error?.code === 'string' ? error.code : undefined;
  return { message, code, type: typeof error?.type === 'string' ? error.type : undefined };
}

/** Retry-After in milliseconds: OpenAI's `retry-after-ms`, else `Retry-After` in seconds or as an HTTP date. */
function retryAfterMsOf(headers: ProviderAnswer['headers']): number | undefined {
  const precise = Number(headers['retry-after-ms']);
  if (headers['retry-after-ms'] !== undefined && Number.isFinite(precise) && precise >= 0) return precise;
  const header = headers['retry-after'];
  if (header === undefined) return undefined;
  const seconds = Number(header);
  const asked = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(asked) ? Math.max(0, asked) : undefined;
}

function sentenceStart(title: string): string {
  return `${title.charAt(0).toUpperCase()}${title.slice(1)}`;
}

function failureOf(answer: ProviderAnswer, apiKey: string, title: string): Error {
  const { status } = answer;
  const error = errorOf(answer, apiKey);
  const who = sentenceStart(title);
  const detail = `(${status}${error.code ? ` ${error.code}` : ''})${error.message ? `: ${error.message}` : ''}`;
  if (status === 401) return new ImageKeyRejectedError(`${who} rejected the configured API key ${detail}`, keySetting);
  if (status === 400 && error.code && contentPolicyCodes.has(error.code)) {
    return new ImageRejectedError(`${who} refused to draw this prompt: its content policy does not allow it ${detail}`);
  }
  // Out of credit is not a rate limit: retrying cannot succeed until the operator pays.
  if (status === 429 && (error.code === 'insufficient_quota' || error.type === 'insufficient_quota')) {
    return new ImageRejectedError(`${who} refused the request: the account has no credit left ${detail}`);
  }
  if (status === 429) {
    return new ImageRateLimitedError(`${who} rate limit reached ${detail}`, retryAfterMsOf(answer.headers) ?? defaultRateLimitWaitMs);
  }
  if (status === 408 || status >= 500) {
    return new ImageProviderUnavailableError(`${who} is unavailable ${detail}`, { retryAfterMs: retryAfterMsOf(answer.headers) });
  }
  return new ImageRejectedError(`${who} refused the request ${detail}`);
}

function titleOf(options: OpenAIImagesOptions): string {
  if (options.azure) return 'Azure OpenAI';
  return new URL(options.baseUrl).hostname === 'api.openai.com' ? 'OpenAI' : 'the OpenAI-compatible image API';
}

/** The image provider used when IMAGE_PROVIDER=openai: OpenAI, Azure OpenAI or any server speaking OpenAI's images API. */
export function createOpenAIImagesProvider(options: OpenAIImagesOptions): ImageProvider {
  const { family, sizes: documented } = modelOf(options.model);
  const sizes = options.sizes ?? documented ?? defaultSizes;
  const url = options.azure
    ? `${options.baseUrl}/openai/deployments/${encodeURIComponent(options.azure.deployment)}/images/generations?api-version=${encodeURIComponent(options.azure.apiVersion)}`
    : `${options.baseUrl}/images/generations`;
  const headers: Record<string, string> = options.azure ? { 'api-key': options.apiKey } : { authorization: `Bearer ${options.apiKey}` };
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
  const title = titleOf(options);
  const who = sentenceStart(title);

  function bodyOf(request: ImageRequest, size: ImageSize): Record<string, unknown> {
    return {
      // Azure's deployment names the model.
      ...(options.azure ? {} : { model: options.model }),
      prompt: promptWithPalette(request),
      n: 1,
      size,
      // Only the DALL·E models take `response_format` (GPT image models refuse it and always answer base64); base64
      // spares a second request and the URL's 60 minutes. Other servers answer their default, either shape.
      ...(family === 'dall-e' ? { response_format: 'b64_json' } : {}),
    };
  }

  async function bytesOf(image: GeneratedImage): Promise<Buffer> {
    if (typeof image.b64_json === 'string' && image.b64_json) return Buffer.from(image.b64_json, 'base64');
    if (typeof image.url !== 'string') throw new ImageProviderUnavailableError(`${who} answered without an image`);
    // The URL comes from the answer, not from the operator: it goes through the same guard as customers' URLs.
    try {
      const { body } = await fetchPublicResource(image.url, {
        maxBytes: maxImageBytes,
        timeoutMs: imageFetchTimeoutMs,
        allowPrivateNetworks: options.allowPrivateNetworks,
        what: 'the generated image',
      });
      return body;
    } catch (error) {
      if (!(error instanceof PublicFetchError)) throw error;
      throw new ImageProviderUnavailableError(`${who} answered an image URL that could not be fetched: ${error.reason}`);
    }
  }

  return {
    name: 'openai',
    title,
    async generate(request) {
      const size = nearestSize(sizes, request.format);
      const answer = await postToProvider(url, { who, json: bodyOf(request, size), headers, timeoutMs, maxAnswerBytes });
      if (answer.status >= 300) throw failureOf(answer, options.apiKey, title);
      const data = jsonOf(answer)?.data;
      const [image] = Array.isArray(data) ? (data as GeneratedImage[]) : [];
      if (typeof image !== 'object' || image === null) throw new ImageProviderUnavailableError(`${who} answered without an image`);
      const png = await fitToFormat(await bytesOf(image), request.format, title);
      const { width, height } = postFormats[request.format];
      // DALL·E 3 rewrites every prompt; the customer should see what was drawn (it reaches `respond` and the usage log).
      const revised = typeof image.revised_prompt === 'string' && image.revised_prompt.trim() ? image.revised_prompt.trim() : undefined;
      const shown = revised && revised.length > 300 ? `${revised.slice(0, 297)}...` : revised;
      const details = `${options.model} at ${size}${shown ? `, prompt revised to "${shown}"` : ''}`;
      return { png, width, height, seed: request.seed, madeBy: `${title} (${details})` };
    },
  };
}
