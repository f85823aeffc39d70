import sharp from 'sharp';
import { postFormats, type PostFormat } from '../artwork/post-formats.ts';
import { ImageProviderUnavailableError } from './provider-errors.ts';

/**
 * A provider's image as PNG at exactly the format's pixels, cropped to cover: providers answer their own sizes
 * (Stability's per aspect ratio, OpenAI's fixed few), and renders and videos must look the same whichever made it.
 * An image that cannot be read is an outage of `title` (a truncated or garbled answer), retried like one.
 */
export async function fitToFormat(bytes: Buffer, format: PostFormat, title: string): Promise<Buffer> {
  const { width, height } = postFormats[format];
  try {
    return await sharp(bytes).resize(width, height, { fit: 'cover' }).png().toBuffer();
  } catch (error) {
    throw new ImageProviderUnavailableError(`${title} returned an image that could not be read`, { cause: error });
  }
}
