import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ImageProvider, ImageRequest } from '../../../src/adapters/image-providers/image-provider.ts';
import { ImageProviderUnavailableError, ImageRateLimitedError, ImageRejectedError } from '../../../src/adapters/image-providers/provider-errors.ts';
import { createStabilityImageProvider } from '../../../src/adapters/image-providers/stability-provider.ts';
import { allPostFormats, postFormats } from '../../../src/adapters/artwork/post-formats.ts';
import { closedPort } from '../../fakes/closed-port.ts';
import { startStabilityServer, type StabilityServer } from '../../fakes/stability-server.ts';
import { failureOf } from '../../support/failure-of.ts';

let stability: StabilityServer;
let provider: ImageProvider;

const request: ImageRequest = { prompt: 'A lighthouse at dawn', format: '1:1', seed: 1234, colors: {} };

async function sizeOf(png: Buffer) {
  const { width, height, format } = await sharp(png).metadata();
  return { width, height, format };
}

beforeAll(async () => {
  stability = await startStabilityServer();
  provider = createStabilityImageProvider({ apiKey: stability.apiKey, baseUrl: stability.url, engine: 'core' });
});
beforeEach(() => {
  stability.requests.length = 0;
});
afterAll(() => stability?.close());

describe('Stability AI image provider', () => {
  it.each(allPostFormats)('when Stability answers image bytes for %s, then the image is cropped to the exact format size', async (format) => {
    const image = await provider.generate({ ...request, format });
    expect(await sizeOf(image.png)).toEqual({ ...postFormats[format], format: 'png' });
    expect(image).toMatchObject({ ...postFormats[format], seed: 1234, madeBy: 'Stability AI (stable-image core, seed 1234)' });
    expect(stability.requests[0]?.fields.aspect_ratio).toBe(format);
  });

  it('when it calls Stability, then it posts the documented multipart form with the bearer key and accepts images', async () => {
    await provider.generate(request);
    expect(stability.requests).toHaveLength(1);
    const [sent] = stability.requests;
    expect(sent?.engine).toBe('core');
    expect(sent?.fields).toEqual({ prompt: 'A lighthouse at dawn', aspect_ratio: '1:1', seed: '1234', output_format: 'png' });
    expect(sent?.headers.authorization).toBe(`Bearer ${stability.apiKey}`);
    expect(sent?.headers.accept).toBe('image/*');
    expect(sent?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
  });

  it('when brand colours are given, then the prompt carries a palette hint', async () => {
    await provider.generate({ ...request, colors: { primary: '#112233', accent: '#aabbcc' } });
    expect(stability.requests[0]?.fields.prompt).toBe('A lighthouse at dawn. Colour palette: #112233, #aabbcc');
  });

  it.each(['ultra', 'sd3'] as const)('when the engine is %s, then it calls that engine', async (engine) => {
    const image = await createStabilityImageProvider({ apiKey: stability.apiKey, baseUrl: stability.url, engine }).generate(request);
    expect(stability.requests[0]?.engine).toBe(engine);
    expect(image.madeBy).toBe(`Stability AI (stable-image ${engine}, seed 1234)`);
  });

  it('when Stability answers JSON with a base64 image, then it is used like image bytes', async () => {
    stability.script([{ kind: 'json' }]);
    const image = await provider.generate({ ...request, format: '16:9' });
    expect(await sizeOf(image.png)).toEqual({ width: 1920, height: 1080, format: 'png' });
    expect(image.seed).toBe(1234);
  });

  it('when the request has seed 0, then the seed Stability chose is reported', async () => {
    const image = await provider.generate({ ...request, seed: 0 });
    expect(image.seed).toBeGreaterThan(0);
    expect(image.madeBy).toBe(`Stability AI (stable-image core, seed ${image.seed})`);
  });

  it.each(['image', 'json'] as const)('when the finish reason is CONTENT_FILTERED (as %s), then it fails permanently', async (shape) => {
    stability.script([{ kind: 'content-filtered', as: shape }]);
    const error = await failureOf(provider.generate(request));
    expect(error).toBeInstanceOf(ImageRejectedError);
    expect((error as ImageRejectedError).reason).toContain('CONTENT_FILTERED');
  });

  it.each([
    [400, 'bad_request', ['seed: must be a number between 0 and 4294967294']],
    [403, 'content_moderation', ['Your request was flagged by our content moderation system']],
    [413, 'payload_too_large', ['body: payloads cannot be larger than 10MiB in size']],
    [422, 'invalid_language', ['English is the only supported language for this service']],
  ])('when Stability answers %i %s, then it fails permanently with a reason naming status, name and errors', async (status, name, errors) => {
    stability.script([{ status, name, errors }]);
    const error = await failureOf(provider.generate(request));
    expect(error).toBeInstanceOf(ImageRejectedError);
    expect((error as ImageRejectedError).reason).toBe(`Stability AI refused the request (${status} ${name}): ${errors[0]}`);
  });

  it('when the prompt is empty, then Stability answers 400 and it fails permanently', async () => {
    const error = await failureOf(provider.generate({ ...request, prompt: '' }));
    expect(error).toBeInstanceOf(ImageRejectedError);
    expect((error as ImageRejectedError).reason).toBe('Stability AI refused the request (400 bad_request): prompt: cannot be empty');
  });

  it('when the API key is wrong, then it fails permanently saying so, without showing the key', async () => {
    const wrongKey = 'sk-wrong-key-0123456789';
    const error = await failureOf(createStabilityImageProvider({ apiKey: wrongKey, baseUrl: stability.url, engine: 'core' }).generate(request));
    expect(error).toBeInstanceOf(ImageRejectedError);
    expect((error as ImageRejectedError).reason).toMatch(/^Stability AI rejected the configured API key \(401 unauthorized\)/);
    expect(error.message).not.toContain(wrongKey);
  });

  it('when an error body echoes the API key, then the reason shows it redacted', async () => {
    stability.script([{ status: 400, errors: [`authorization: key ${stability.apiKey} is not allowed to use this engine`] }]);
    const error = await failureOf(provider.generate(request));
    expect(error.message).not.toContain(stability.apiKey);
    expect(error.message).toContain('key [redacted] is not allowed');
  });

  it.each([
    ['no Retry-After', undefined, 60_000],
    ['a Retry-After shorter than the 60 s penalty', '5', 60_000],
    ['a Retry-After of 120 s', '120', 120_000],
  ])('when Stability answers 429 with %s, then it asks to retry after the larger of 60 s and Retry-After', async (_case, retryAfter, expected) => {
    stability.script([{ status: 429, ...(retryAfter ? { retryAfter } : {}) }]);
    const error = await failureOf(provider.generate(request));
    expect(error).toBeInstanceOf(ImageRateLimitedError);
    expect((error as ImageRateLimitedError).retryAfterMs).toBe(expected);
  });

  it('when Stability answers 500, then it reports the provider unavailable (retryable)', async () => {
    stability.script([{ status: 500, errors: ['An unexpected server error occurred'] }]);
    const error = await failureOf(provider.generate(request));
    expect(error).toBeInstanceOf(ImageProviderUnavailableError);
    expect(error.message).toBe('Stability AI is unavailable (500 internal_error): An unexpected server error occurred');
  });

  it('when Stability answers with a body that never ends, then it stops reading at 32 MB and reports the provider unavailable', async () => {
    stability.script([{ kind: 'endless' }]);
    const error = await failureOf(provider.generate(request));
    expect(error).toBeInstanceOf(ImageProviderUnavailableError);
    expect(error.message).toBe('Stability AI answered with more than 32 MB');
  });

  it('when nothing listens at the base URL, then it reports the provider unavailable', async () => {
    const error = await failureOf(
      createStabilityImageProvider({ apiKey: 'k', baseUrl: `http://127.0.0.1:${await closedPort()}`, engine: 'core' }).generate(request),
    );
    expect(error).toBeInstanceOf(ImageProviderUnavailableError);
    expect(error.message).toBe('Stability AI could not be reached (ECONNREFUSED)');
  });

  it('when Stability does not answer in time, then it reports the provider unavailable', async () => {
    const held = stability.hold();
    try {
      const slow = createStabilityImageProvider({ apiKey: stability.apiKey, baseUrl: stability.url, engine: 'core', timeoutMs: 300 });
      const error = await failureOf(slow.generate(request));
      expect(error).toBeInstanceOf(ImageProviderUnavailableError);
      expect(error.message).toBe('Stability AI did not answer within 0.3 s');
    } finally {
      held.release();
    }
  });
});
