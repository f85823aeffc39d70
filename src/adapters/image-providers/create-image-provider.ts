import type { Config } from '../../config.ts';
import type { ImageProvider } from './image-provider.ts';
import { createLocalImageProvider } from './local-provider.ts';
import { createStabilityImageProvider } from './stability-provider.ts';

/** Stability AI when STABILITY_API_KEY is set, otherwise the local renderer. */
export function createImageProvider(config: Config['generation']): ImageProvider {
  return config.provider === 'stability' ? createStabilityImageProvider(config.stability) : createLocalImageProvider();
}
