import sharp from 'sharp';
import { AppError } from '../../common/errors/app-error.ts';
import { pixelLimitText, pixelsOverLimit } from '../../adapters/artwork/pixel-limit.ts';

export type ImageType = { extension: 'jpg' | 'png' | 'webp'; contentType: string };

const accepted: Record<string, ImageType> = {
  jpeg: { extension: 'jpg', contentType: 'image/jpeg' },
  png: { extension: 'png', contentType: 'image/png' },
  webp: { extension: 'webp', contentType: 'image/webp' },
};

/**
 * The image type read from the bytes themselves; the file name and the declared content type are not trusted.
 * Anything that is not a readable JPEG, PNG or WebP image is refused with 415; an image of more pixels than the
 * limit with 413, like any other upload too large to take (only the header is read to tell).
 */
export async function detectImageType(bytes: Buffer): Promise<ImageType> {
  // The header only, whatever the dimensions: the limit is ours to apply, with a message that names it.
  // Inside a promise: sharp throws synchronously for some inputs (an empty file), which are just as unreadable.
  const metadata = await Promise.resolve()
    .then(() => sharp(bytes, { limitInputPixels: false }).metadata())
    .catch(() => null);
  const format = metadata?.format ?? 'unreadable';
  const type = accepted[format];
  if (!metadata || !type) {
    throw new AppError(
      'unsupported-media-type',
      `The file must be a JPEG, PNG or WebP image; its content is ${format === 'unreadable' ? 'not an image we can read' : format}.`,
    );
  }
  const over = pixelsOverLimit(metadata.width, metadata.height);
  if (over) throw new AppError('payload-too-large', `The image is ${over}; a cover is at most ${pixelLimitText}.`);
  return type;
}
