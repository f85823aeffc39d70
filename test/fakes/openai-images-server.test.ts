import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIImagesServer, type OpenAIImagesServer } from './openai-images-server.ts';

// The fake refuses what OpenAI's description refuses, in OpenAI's error shape: what the provider never sends, so its
// own tests cannot show it.

let openai: OpenAIImagesServer;

beforeAll(async () => {
  openai = await startOpenAIImagesServer();
});
afterAll(() => openai?.close());

async function generate(body: unknown, key = openai.apiKey) {
  const response = await fetch(`${openai.url}/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { error?: { message: string; code: string | null } } };
}

describe('OpenAI images fake', () => {
  it('when the body has no prompt, then it answers 400 naming it, by the OpenAPI description', async () => {
    const answer = await generate({ model: 'gpt-image-1', size: '1024x1024' });
    expect(answer.status).toBe(400);
    expect(answer.body.error?.message).toContain("must have required property 'prompt'");
  });

  it('when a field has the wrong type, then it answers 400 naming it', async () => {
    const answer = await generate({ model: 'gpt-image-1', prompt: 'a cat', n: 'two' });
    expect(answer.status).toBe(400);
    expect(answer.body.error?.message).toContain('body/n');
  });

  it('when a GPT image model is asked for response_format, then it answers 400 unknown_parameter', async () => {
    const answer = await generate({ model: 'gpt-image-1', prompt: 'a cat', response_format: 'b64_json' });
    expect(answer).toMatchObject({ status: 400, body: { error: { code: 'unknown_parameter' } } });
  });

  it('when the key is wrong, then it answers 401 invalid_api_key', async () => {
    const answer = await generate({ model: 'gpt-image-1', prompt: 'a cat' }, 'sk-wrong');
    expect(answer).toMatchObject({ status: 401, body: { error: { code: 'invalid_api_key' } } });
  });
});
