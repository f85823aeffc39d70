import { postFormats } from '../artwork/post-formats.ts';
import { fitToFormat } from './fit-to-format.ts';
import type { ImageProvider, ImageRequest } from './image-provider.ts';
import { postToProvider, type ProviderAnswer } from './post-to-provider.ts';
import { promptWithPalette } from './prompt-with-palette.ts';
import { ImageKeyRejectedError, ImageProviderUnavailableError, ImageRateLimitedError, ImageRejectedError } from './provider-errors.ts';
import { redactedWords, redactSecrets } from '../../common/redaction/redact-secrets.ts';

// Stability AI's v2beta stable-image REST API. One attempt per call: got's own retries are off
// because Temporal's retry policy owns retrying, with the delays the errors below ask for.

export type StabilityOptions = {
  apiKey: string;
  baseUrl: string;
  engine: 'core' | 'ultra' | 'sd3';
  /** For the whole call; Ultra usually answers within a minute. */
  timeoutMs?: number;
};

const defaultTimeoutMs = 120_000;
// Its images are a few MB (about a third more as base64 JSON); a longer answer is cut off and counts as an outage.
const maxAnswerBytes = 32 * 1024 * 1024;
// After a client passes the rate limit, Stability refuses it for 60 s; retrying sooner only extends the penalty.
const rateLimitPenaltyMs = 60_000;

/** The image in Stability's answer, with what it says of it. */
type Generated = { bytes: Buffer; finishReason: string | undefined; seed: number | undefined };

function retryAfterMs(header: string | undefined): number {
  const seconds = Number(header);
  const asked = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header ?? '') - Date.now();
  return Math.max(rateLimitPenaltyMs, Number.isFinite(asked) ? asked : 0);
}

function isJson(answer: ProviderAnswer): boolean {
  return (answer.headers['content-type'] ?? '').includes('application/json');
}

function jsonOf(answer: ProviderAnswer): Record<string, unknown> {
  try {
    const body: unknown = JSON.parse(answer.body.toString('utf8'));
    return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** "(403 content_moderation): Your request was flagged ..." from Stability's `{ id, name, errors }` body. */
function detailOf(answer: ProviderAnswer, apiKey: string): string {
  const body = isJson(answer) ? jsonOf(answer) : {};
  const name = typeof body.name === 'string' ? ` ${body.name}` : '';
  const errors = Array.isArray(body.errors) ? body.errors.filter((error) => typeof error === 'string') : undefined;
  // A server that echoes the key back must not put it into a reason that users and logs see; a body that is not
  // Stability's error shows its first 200 characters, cut after the key is blanked so no part of it survives the cut.
  const redacted = errors ? redactSecrets(errors.join('; ').trim(), [apiKey]) : redactedWords(answer.body.toString('utf8', 0, 4096).trim(), [apiKey], 200);
  return `(${answer.status}${name})${redacted ? `: ${redacted}` : ''}`;
}

function failureOf(answer: ProviderAnswer, apiKey: string): Error {
  const status = answer.status;
  const detail = detailOf(answer, apiKey);
  if (status === 401) return new ImageKeyRejectedError(`Stability AI rejected the configured API key ${detail}`, 'STABILITY_API_KEY');
  if (status === 429) {
    return new ImageRateLimitedError(`Stability AI rate limit reached ${detail}`, retryAfterMs(answer.headers['retry-after']));
  }
  if (status === 408 || status >= 500) return new ImageProviderUnavailableError(`Stability AI is unavailable ${detail}`);
  return new ImageRejectedError(`Stability AI refused the request ${detail}`);
}

// Stability answers image bytes with the details in headers, or (when the client accepts JSON) JSON with the image
// in base64; tell them apart by content type.
function generatedOf(answer: ProviderAnswer): Generated {
  const type = answer.headers['content-type'] ?? '';
  if (isJson(answer)) {
    const body = jsonOf(answer);
    if (typeof body.image !== 'string') throw new ImageProviderUnavailableError('Stability AI answered JSON without an image');
    return {
      bytes: Buffer.from(body.image, 'base64'),
      finishReason: typeof body.finish_reason === 'string' ? body.finish_reason : undefined,
      seed: typeof body.seed === 'number' ? body.seed : undefined,
    };
  }
  if (!type.startsWith('image/')) throw new ImageProviderUnavailableError(`Stability AI answered an unexpected content type (${type || 'none'})`);
  const finishReason = answer.headers['finish-reason'];
  const seed = Number(answer.headers.seed);
  return { bytes: answer.body, finishReason: typeof finishReason === 'string' ? finishReason : undefined, seed: Number.isFinite(seed) ? seed : undefined };
}

/** The image provider used when STABILITY_API_KEY is set. */
export function createStabilityImageProvider(options: StabilityOptions): ImageProvider {
  const url = `${options.baseUrl}/v2beta/stable-image/generate/${options.engine}`;
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
  const title = 'Stability AI';
  function formOf(request: ImageRequest): FormData {
    const form = new FormData();
    form.set('prompt', promptWithPalette(request));
    form.set('aspect_ratio', request.format);
    form.set('seed', String(request.seed));
    form.set('output_format', 'png');
    return form;
  }

  return {
    name: 'stability',
    title,
    async generate(request) {
      const answer = await postToProvider(url, {
        who: title,
        form: formOf(request),
        headers: { authorization: `Bearer ${options.apiKey}`, accept: 'image/*' },
        timeoutMs,
        maxAnswerBytes,
      });
      if (answer.status >= 300) throw failureOf(answer, options.apiKey);
      const generated = generatedOf(answer);
      if (generated.finishReason === 'CONTENT_FILTERED') {
        throw new ImageRejectedError('Stability AI withheld the image: its content filter flagged the result (CONTENT_FILTERED)');
      }
      const { width, height } = postFormats[request.format];
      const png = await fitToFormat(generated.bytes, request.format, title);
      const seed = generated.seed ?? request.seed;
      return { png, width, height, seed, madeBy: `${title} (stable-image ${options.engine}, seed ${seed})` };
    },
  };
}
