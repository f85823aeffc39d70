import type { Config } from '../../config.ts';
import type { ImageProvider } from './image-provider.ts';
import { createLocalImageProvider } from './local-provider.ts';
import { createOpenAIImagesProvider } from './openai-images-provider.ts';
import { createStabilityImageProvider } from './stability-provider.ts';

/** The provider IMAGE_PROVIDER names (by default Stability AI when STABILITY_API_KEY is set, otherwise the local renderer). */
export function createImageProvider(config: Config['generation']): ImageProvider {
  switch (config.provider) {
    case 'stability':
      return createStabilityImageProvider(config.stability);
    case 'openai':
      return createOpenAIImagesProvider(config.openai);
    case 'local':
      return createLocalImageProvider();
  }
}
