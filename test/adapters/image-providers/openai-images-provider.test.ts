import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ImageRequest } from '../../../src/adapters/image-providers/image-provider.ts';
import { createOpenAIImagesProvider, type OpenAIImagesOptions } from '../../../src/adapters/image-providers/openai-images-provider.ts';
import {
  ImageKeyRejectedError,
  ImageProviderUnavailableError,
  ImageRateLimitedError,
  ImageRejectedError,
} from '../../../src/adapters/image-providers/provider-errors.ts';
import { allPostFormats, postFormats } from '../../../src/adapters/artwork/post-formats.ts';
import { closedPort } from '../../fakes/closed-port.ts';
import { startOpenAIImagesServer, type OpenAIImagesServer } from '../../fakes/openai-images-server.ts';
import { failureOf } from '../../support/failure-of.ts';

let openai: OpenAIImagesServer;

const request: ImageRequest = { prompt: 'A lighthouse at dawn', format: '1:1', seed: 1234, colors: {} };
const azureDeployment = { name: 'images-prod', model: 'gpt-image-1' };

function providerFor(overrides: Partial<OpenAIImagesOptions> = {}) {
  return createOpenAIImagesProvider({
    baseUrl: openai.url,
    apiKey: openai.apiKey,
    model: 'gpt-image-1',
    sizes: undefined,
    azure: null,
    allowPrivateNetworks: true,
    ...overrides,
  });
}

async function sizeOf(png: Buffer) {
  const { width, height, format } = await sharp(png).metadata();
  return { width, height, format };
}

beforeAll(async () => {
  openai = await startOpenAIImagesServer({ azureDeployment, otherModelSizes: ['512x512', '1024x1024', '1024x576', '576x1024'] });
});
beforeEach(() => {
  openai.requests.length = 0;
  openai.downloads.length = 0;
});
afterAll(() => openai?.close());

describe('OpenAI-compatible image provider: sizes', () => {
  it.each([
    ['gpt-image-1', '1:1', '1024x1024'],
    ['gpt-image-1', '16:9', '1536x1024'],
    ['gpt-image-1', '9:16', '1024x1536'],
    ['dall-e-3', '1:1', '1024x1024'],
    ['dall-e-3', '16:9', '1792x1024'],
    ['dall-e-3', '9:16', '1024x1792'],
    ['dall-e-2', '1:1', '1024x1024'],
    ['dall-e-2', '16:9', '1024x1024'],
  ] as const)('when the model is %s and the format %s, then it asks for %s and the image has the format’s exact pixels', async (model, format, size) => {
    const image = await providerFor({ model }).generate({ ...request, format });
    expect(openai.requests[0]?.body.size).toBe(size);
    expect(await sizeOf(image.png)).toEqual({ ...postFormats[format], format: 'png' });
    expect(image).toMatchObject({ ...postFormats[format], seed: 1234 });
  });

  it.each(allPostFormats)('when a server’s sizes are configured (format %s), then it asks for the nearest of them', async (format) => {
    const sizes = ['512x512', '1024x1024', '1024x576', '576x1024'] as const;
    const image = await providerFor({ model: 'flux-schnell', sizes: [...sizes] }).generate({ ...request, format });
    expect(openai.requests[0]?.body.size).toBe({ '1:1': '1024x1024', '16:9': '1024x576', '9:16': '576x1024' }[format]);
    expect(await sizeOf(image.png)).toEqual({ ...postFormats[format], format: 'png' });
  });
});

describe('OpenAI-compatible image provider: requests and answers', () => {
  it('when the model is a GPT image model, then it sends model, prompt, n and size with the bearer key and no response_format', async () => {
    await providerFor().generate({ ...request, colors: { primary: '#112233' } });
    const [sent] = openai.requests;
    expect(sent?.path).toBe('/v1/images/generations');
    expect(sent?.body).toEqual({ model: 'gpt-image-1', prompt: 'A lighthouse at dawn. Colour palette: #112233', n: 1, size: '1024x1024' });
    expect(sent?.headers.authorization).toBe(`Bearer ${openai.apiKey}`);
  });

  it('when the model is dall-e-3, then it asks for base64, and the revised prompt reaches madeBy', async () => {
    const image = await providerFor({ model: 'dall-e-3' }).generate(request);
    expect(openai.requests[0]?.body.response_format).toBe('b64_json');
    expect(openai.downloads).toEqual([]);
    expect(image.madeBy).toBe('the OpenAI-compatible image API (dall-e-3 at 1024x1024, prompt revised to "A vivid, detailed picture: A lighthouse at dawn")');
  });

  it('when the server answers a URL, then the image is fetched from it and fitted to the format', async () => {
    openai.script([{ kind: 'image', as: 'url', revisedPrompt: 'A lighthouse, dawn light' }]);
    const image = await providerFor({ model: 'flux-schnell', sizes: ['1024x1024'] }).generate({ ...request, format: '9:16' });
    expect(openai.requests[0]?.body).not.toHaveProperty('response_format');
    expect(openai.downloads).toHaveLength(1);
    expect(await sizeOf(image.png)).toEqual({ width: 1080, height: 1920, format: 'png' });
    expect(image.madeBy).toContain('prompt revised to "A lighthouse, dawn light"');
  });

  it('when the answer’s URL is on a private address and private networks are not allowed, then it fails as unavailable without fetching', async () => {
    openai.script([{ kind: 'image', as: 'url' }]);
    const error = await failureOf(
      providerFor({ model: 'flux-schnell', sizes: ['1024x1024'], allowPrivateNetworks: false }).generate(request),
      ImageProviderUnavailableError,
    );
    expect(error.message).toBe(
      'The OpenAI-compatible image API answered an image URL that could not be fetched: the generated image host is a private address',
    );
    expect(openai.downloads).toEqual([]);
  });

  it('when the Azure variant is configured, then it posts to the deployment with the api-version and the api-key header', async () => {
    const azure = providerFor({ baseUrl: openai.azureUrl, azure: { deployment: 'images-prod', apiVersion: '2025-04-01-preview' } });
    const image = await azure.generate({ ...request, format: '16:9' });
    const [sent] = openai.requests;
    expect(sent?.path).toBe('/openai/deployments/images-prod/images/generations');
    expect(sent?.query.get('api-version')).toBe('2025-04-01-preview');
    expect(sent?.headers['api-key']).toBe(openai.apiKey);
    expect(sent?.headers.authorization).toBeUndefined();
    expect(sent?.body).toEqual({ prompt: 'A lighthouse at dawn', n: 1, size: '1536x1024' });
    expect(image.madeBy).toBe('Azure OpenAI (gpt-image-1 at 1536x1024)');
  });
});

describe('OpenAI-compatible image provider: failures', () => {
  it.each(['content_policy_violation', 'moderation_blocked'] as const)('when the prompt is refused (%s), then it fails permanently saying so', async (code) => {
    openai.script([{ kind: 'content-policy', code }]);
    const error = await failureOf(providerFor().generate(request), ImageRejectedError);
    expect(error.reason).toMatch(
      new RegExp(
        `^The OpenAI-compatible image API refused to draw this prompt: its content policy does not allow it \\(400 ${code}\\): Your request was rejected`,
      ),
    );
  });

  it('when the prompt is empty, then the server refuses it and it fails permanently', async () => {
    const error = await failureOf(providerFor().generate({ ...request, prompt: '' }), ImageRejectedError);
    expect(error).not.toBeInstanceOf(ImageKeyRejectedError);
    expect(openai.requests).toHaveLength(1);
  });

  it('when a configured size is one the model does not take, then OpenAI’s refusal is permanent and names it', async () => {
    const error = await failureOf(providerFor({ sizes: ['1792x1024'] }).generate(request), ImageRejectedError);
    expect(error.reason).toContain("(400 invalid_value): Invalid value: '1792x1024'");
  });

  it('when the key is rejected, then it fails with a key rejection naming the setting, without showing the key', async () => {
    const wrongKey = 'sk-proj-wrong-key-0123456789abcdef';
    const error = await failureOf(providerFor({ apiKey: wrongKey }).generate(request), ImageKeyRejectedError);
    expect(error.setting).toBe('OPENAI_IMAGES_API_KEY');
    expect(error.reason).toMatch(/^The OpenAI-compatible image API rejected the configured API key \(401 invalid_api_key\): Incorrect API key provided/);
    expect(error.message).not.toContain(wrongKey);
  });

  it('when an error echoes the key back, then the key is redacted before the message is cut short', async () => {
    openai.script([{ status: 400, message: `${'x'.repeat(270)} ${openai.apiKey} is not allowed` }]);
    const error = await failureOf(providerFor().generate(request), ImageRejectedError);
    expect(error.reason).not.toContain(openai.apiKey.slice(0, 12));
    expect(error.reason).toContain('[redacted');
  });

  it.each([
    ['a Retry-After of 7 s', '7', 7_000],
    ['a Retry-After of 90 s', '90', 90_000],
  ])('when the server answers 429 with %s, then it is rate limited for exactly that long', async (_case, retryAfter, expected) => {
    openai.script([{ status: 429, code: 'rate_limit_exceeded', type: 'requests', retryAfter }]);
    const error = await failureOf(providerFor().generate(request), ImageRateLimitedError);
    expect(error.retryAfterMs).toBe(expected);
  });

  it('when the account has no credit (429 insufficient_quota), then it fails permanently instead of retrying', async () => {
    openai.script([{ status: 429, code: 'insufficient_quota', type: 'insufficient_quota', message: 'You exceeded your current quota.' }]);
    const error = await failureOf(providerFor().generate(request), ImageRejectedError);
    expect(error.reason).toContain('the account has no credit left');
  });

  it('when the server answers 500, then the provider is unavailable (retried on the ladder)', async () => {
    openai.script([{ status: 500, message: 'The server had an error while processing your request.' }]);
    const error = await failureOf(providerFor().generate(request), ImageProviderUnavailableError);
    expect(error.message).toBe('The OpenAI-compatible image API is unavailable (500): The server had an error while processing your request.');
    expect(error.retryAfterMs).toBeUndefined();
  });

  it('when the server answers 503 with Retry-After, then the outage is retried after that long', async () => {
    openai.script([{ status: 503, retryAfter: '12' }]);
    const error = await failureOf(providerFor().generate(request), ImageProviderUnavailableError);
    expect(error.retryAfterMs).toBe(12_000);
  });

  it('when nothing listens at the base URL, then the provider is unavailable', async () => {
    const error = await failureOf(providerFor({ baseUrl: `https://127.0.0.1:${await closedPort()}/v1` }).generate(request), ImageProviderUnavailableError);
    expect(error.message).toBe('The OpenAI-compatible image API could not be reached (ECONNREFUSED)');
  });
});
