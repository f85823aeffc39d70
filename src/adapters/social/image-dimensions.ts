import sharp from 'sharp';
import { SocialRejectedError } from './social-connector.ts';

/** The image's width and height in pixels, read from its bytes; an image that cannot be read is refused for good. */
export async function imageDimensions(bytes: Buffer, platform: string): Promise<{ width: number; height: number }> {
  const { width, height } = await sharp(bytes)
    .metadata()
    .catch(() => ({ width: 0, height: 0 }));
  if (!width || !height) throw new SocialRejectedError(`the image to post to ${platform} could not be read`);
  return { width, height };
}
