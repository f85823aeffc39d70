import { createOpenAIImagesProvider } from '../src/adapters/image-providers/openai-images-provider.ts';
import { startOpenAIImagesServer } from '../test/fakes/openai-images-server.ts';
import type { BenchStack } from './bench-stack.ts';
import { settings } from './settings.ts';
import { percentile, timed } from './stats.ts';
import { compared, heading, type Row } from './table.ts';

// A generate through the OpenAI-compatible provider against its fake (a loopback server that checks every request
// against OpenAI's description and answers a PNG of the size asked, base64 in JSON), beside the fake alone: one
// request with the same body from here. The provider's call alone adds decoding and the fit to the format's pixels;
// the whole generate adds the workflow, storage and the save. Concurrency 1, p50 of BENCH_SAMPLES each, in turns.

const model = 'gpt-image-1';
const format = '16:9';

export async function benchOpenAIImages(stack: BenchStack): Promise<Row[]> {
  const fake = await startOpenAIImagesServer({ plainHttp: true });
  try {
    const service = await stack.startService({
      IMAGE_PROVIDER: 'openai',
      OPENAI_IMAGES_URL: fake.url,
      OPENAI_IMAGES_API_KEY: fake.apiKey,
      OPENAI_IMAGES_MODEL: model,
    });
    try {
      return await measure(fake, service.call);
    } finally {
      await service.stop();
    }
  } finally {
    await fake.close();
  }
}

async function measure(fake: Awaited<ReturnType<typeof startOpenAIImagesServer>>, call: BenchStack['call']): Promise<Row[]> {
  const provider = createOpenAIImagesProvider({ baseUrl: fake.url, apiKey: fake.apiKey, model, sizes: undefined, azure: null, allowPrivateNetworks: false });
  const request = { prompt: 'A calm sea at dusk', format, seed: 1, colors: {} } as const;
  const body = JSON.stringify({ model, prompt: request.prompt, n: 1, size: '1536x1024' });
  const fakeAlone = async () => {
    const response = await fetch(`${fake.url}/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fake.apiKey}`, 'content-type': 'application/json' },
      body,
    });
    if (response.status !== 200) throw new Error(`the fake answered ${response.status}`);
    await response.arrayBuffer();
  };
  const { body: project } = await call<{ id: string }>('POST', '/projects', { name: 'OpenAI images' });
  const posts: string[] = [];
  for (let index = 0; index < settings.samples + 3; index += 1) {
    posts.push((await call<{ id: string }>('POST', '/posts', { title: `OpenAI ${index}`, prompt: request.prompt, projectId: project.id })).body.id);
  }
  const generate = async () => {
    const { status } = await call('POST', `/posts/${posts.pop()!}/generate`, { format });
    if (status !== 200) throw new Error(`generate answered ${status}`);
  };
  // Warm up every path once (JIT, connection pools, sharp).
  for (let index = 0; index < 3; index += 1) {
    await fakeAlone();
    await provider.generate(request);
    await generate();
  }
  const runs = { fake: [] as number[], provider: [] as number[], generate: [] as number[] };
  for (let index = 0; index < settings.samples; index += 1) {
    runs.fake.push((await timed(fakeAlone)).ms);
    runs.provider.push((await timed(() => provider.generate(request))).ms);
    runs.generate.push((await timed(generate)).ms);
  }
  const [alone, providerCall, generated] = [runs.fake, runs.provider, runs.generate].map((values) => percentile(values, 50)) as [number, number, number];
  const floor = { value: alone, name: 'the fake alone' };
  return [
    heading(`OpenAI-compatible image provider (${model}, ${format} from 1536x1024), p50 at concurrency 1`),
    compared("the provider's call (decode + fit to 1920×1080)", providerCall, 'ms', floor),
    compared('POST /posts/{id}/generate through the fake', generated, 'ms', floor),
  ];
}
