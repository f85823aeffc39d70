import { renderLocalArtworkOffThread } from '../artwork/off-thread-artwork.ts';
import { postFormats } from '../artwork/post-formats.ts';
import type { ImageProvider } from './image-provider.ts';

/** The provider that needs no network and no key: deterministic artwork drawn from the prompt and brand colours. */
export function createLocalImageProvider(): ImageProvider {
  const title = 'the local renderer';
  return {
    name: 'local',
    title,
    async generate({ prompt, format, seed, colors }) {
      const png = await renderLocalArtworkOffThread({ prompt, seed, format, colors });
      const { width, height } = postFormats[format];
      return { png, width, height, seed, madeBy: `${title} (deterministic artwork drawn from the prompt, no AI model)` };
    },
  };
}
